package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/migrations"
)

// versionTable is goose's bookkeeping table (its default name).
const versionTable = "goose_db_version"

// Migrate applies every pending embedded migration to the database at url, creating
// the file if needed. It is what `chronos migrate` runs.
func Migrate(ctx context.Context, url string) error {
	path, err := ParseURL(url)
	if err != nil {
		return err
	}
	db, err := openWriter(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	return migrate(ctx, db)
}

// migrate runs goose on the writer pool, whose transactions are BEGIN IMMEDIATE, so a
// migration never interleaves with another process's writes. Goose reads the applied
// versions before it takes the write lock, though, so when several processes migrate a
// new file at once, the later ones wait for the first and then try the same migration
// again. With DDL that second attempt fails ("table alarms already exists") and rolls
// back; if the database is then at the latest version, the other process did the work
// and we succeed, and if the other is still halfway (each migration commits on its
// own), we try again from where it has got to. (SQLite has no session lock goose could
// hold across migrations.)
//
// Rule for future SQLite migrations, which follows: a migration re-run on a database
// that already has it must fail, not apply twice. DDL does; guard any data change so a
// second run fails or changes nothing.
//
// Goose also runs some statements outside a transaction; in WAL mode one that reads and
// then writes while another process commits gets SQLITE_BUSY at once, without waiting
// for the busy timeout. That is retried a few times: the next attempt sees the other
// process's work.
func migrate(ctx context.Context, db *sql.DB) error {
	p, err := newProvider(db)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		before := appliedVersion(ctx, db)
		_, err := p.Up(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if checkVersion(ctx, db) == nil {
			return nil
		}
		// Busy, or another process is migrating the same file: it applied a version
		// while we tried (each migration is its own transaction, so a loser can look
		// while the winner is halfway through). Try again: the next attempt starts
		// after the other's versions.
		moved := appliedVersion(ctx, db) > before
		if attempt < 10 && (moved || errors.Is(mapError(err), ErrBusy)) {
			time.Sleep(time.Duration(attempt) * 50 * time.Millisecond)
			continue
		}
		return fmt.Errorf("sqlite: migrate: %w", err)
	}
}

// appliedVersion is the newest applied migration, 0 when none (or unreadable).
func appliedVersion(ctx context.Context, db *sql.DB) int64 {
	var v sql.NullInt64
	q := `SELECT max(version_id) FROM ` + versionTable + ` WHERE is_applied`
	if err := db.QueryRowContext(ctx, q).Scan(&v); err != nil {
		return 0
	}
	return v.Int64
}

func newProvider(db *sql.DB) (*goose.Provider, error) {
	p, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.SQLite(),
		goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return nil, fmt.Errorf("sqlite: migrations: %w", err)
	}
	return p, nil
}

// latestVersion is the newest embedded migration: the schema this binary expects.
var latestVersion = sync.OnceValues(func() (int64, error) {
	// The provider only reads the embedded files here; it needs a *sql.DB to exist,
	// not to be open, so a never-opened handle will do.
	db, err := sql.Open("sqlite", "")
	if err != nil {
		return 0, fmt.Errorf("sqlite: migrations: %w", err)
	}
	defer db.Close()
	p, err := newProvider(db)
	if err != nil {
		return 0, err
	}
	sources := p.ListSources() // never empty: NewProvider refuses an empty set
	return sources[len(sources)-1].Version, nil
})

// checkVersion refuses a schema that is not exactly the latest embedded version. It
// only reads (goose's own version check would create its table on an empty database).
func checkVersion(ctx context.Context, db *sql.DB) error {
	want, err := latestVersion()
	if err != nil {
		return err
	}
	var have int64
	var exists int
	err = db.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, versionTable).Scan(&exists)
	if err != nil {
		return mapError(err)
	}
	if exists == 1 {
		var v sql.NullInt64
		q := `SELECT max(version_id) FROM ` + versionTable + ` WHERE is_applied`
		if err := db.QueryRowContext(ctx, q).Scan(&v); err != nil {
			return mapError(err)
		}
		have = v.Int64
	}
	return sqlstore.SchemaVersion("sqlite", have, want)
}
