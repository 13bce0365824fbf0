package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/crc64"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/chronoshq/chronos/adapters/internal/ctxerr"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/migrations"
	"github.com/chronoshq/chronos/ports"
)

// versionTable is goose's bookkeeping table, in the first schema of the search_path.
const versionTable = "goose_db_version"

// Migrate applies every pending migration to the database at url. Several processes
// may run it at once: a session advisory lock lets one migrate while the others wait
// (behind a transaction pooler, a lock row; see migrationLocker).
func Migrate(ctx context.Context, url string) error {
	cfg, pooled, err := parseStoreURL(url)
	if err != nil {
		return err
	}
	return migrateConfig(ctx, cfg.ConnConfig, pooled)
}

// migrateConfig runs goose over a database/sql handle of its own (goose needs one),
// closed before returning.
func migrateConfig(ctx context.Context, cc *pgx.ConnConfig, pooled bool) (err error) {
	db := stdlib.OpenDB(*cc.Copy())
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("postgres: migrate: %w", cerr)
		}
	}()

	// The lock is per database (advisory locks are) and per schema, so installations
	// in different schemas of one database, and parallel tests, do not queue on each
	// other.
	var schema string
	if err := db.QueryRowContext(ctx, `SELECT coalesce(current_schema(), '')`).Scan(&schema); err != nil {
		return migrateError(err)
	}
	if schema == "" {
		return errors.New("postgres: migrate: no schema in the search_path exists; create it first")
	}
	locker, err := migrationLocker(schema, pooled)
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.Postgres(),
		locker, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return migrateError(err)
	}
	return nil
}

func migrateError(err error) error {
	if ctxerr.Is(err) {
		return err
	}
	return fmt.Errorf("postgres: migrate: %w", err)
}

var crcTable = crc64.MakeTable(crc64.ECMA)

// migrationLocker serialises the migrations of schema. A session advisory lock,
// unless the connection goes through a transaction pooler: there the lock would be
// taken on one server session and the unlock sent to another, so the lock would stay
// held by a session nobody owns. goose's table lock instead holds a lease row
// (goose_lock in the schema) that it renews while it migrates and that expires when
// the process dies. The two do not exclude each other: every node of an installation
// migrates through the same kind of URL (docs/postgres.md).
func migrationLocker(schema string, pooled bool) (goose.ProviderOption, error) {
	if pooled {
		locker, err := lock.NewPostgresTableLocker(
			lock.WithTableLockID(migrationLockID(schema)&math.MaxInt64|1), // it must be positive
			lock.WithTableLockTimeout(time.Second, 300),                   // every second for up to five minutes
		)
		return goose.WithLocker(locker), err
	}
	locker, err := lock.NewPostgresSessionLocker(
		lock.WithLockID(migrationLockID(schema)),
		lock.WithLockTimeout(1, 300), // poll every second for up to five minutes
	)
	return goose.WithSessionLocker(locker), err
}

// migrationLockID names the advisory lock that serialises migrations of one schema.
func migrationLockID(schema string) int64 {
	return int64(crc64.Checksum([]byte("chronos migrations "+schema), crcTable))
}

// latestVersion is the highest migration version embedded in this binary.
func latestVersion() (int64, error) {
	names, err := fs.Glob(migrations.Postgres(), "*.sql")
	if err != nil {
		return 0, err
	}
	var latest int64
	for _, name := range names {
		prefix, _, ok := strings.Cut(name, "_")
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(prefix, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("migration %s: version prefix is not a number", name)
		}
		latest = max(latest, v)
	}
	return latest, nil
}

// checkSchemaVersion refuses a database not at latestVersion and returns the schema
// chronos lives in (the first existing schema of the search_path, where goose put its
// table and the migrations theirs). It only reads: opening a store on the wrong
// database must not create tables in it.
func (s *Store) checkSchemaVersion(ctx context.Context) (schema string, err error) {
	want, err := latestVersion()
	if err != nil {
		return "", fmt.Errorf("postgres: embedded migrations: %w", err)
	}
	var exists bool
	err = s.pool.QueryRow(ctx, `
		SELECT coalesce(current_schema(), ''),
		       CASE WHEN current_schema() IS NULL THEN false
		            ELSE to_regclass(format('%I.%I', current_schema(), '`+versionTable+`')) IS NOT NULL END`,
	).Scan(&schema, &exists)
	if err != nil {
		return "", mapError(err)
	}
	if schema == "" {
		return "", fmt.Errorf("postgres: %w: no schema of the search_path exists; create it, then run `chronos migrate`",
			ports.ErrSchemaVersion)
	}
	var found int64
	if exists {
		// Qualified, so a version table elsewhere on the search_path is never read.
		q := `SELECT coalesce(max(version_id), 0) FROM ` + pgx.Identifier{schema, versionTable}.Sanitize()
		if err := s.pool.QueryRow(ctx, q).Scan(&found); err != nil {
			return "", mapError(err)
		}
	}
	return schema, sqlstore.SchemaVersion("postgres", found, want)
}
