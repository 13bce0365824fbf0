package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/pressly/goose/v3"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/migrations"
)

// versionTable is goose's bookkeeping table (its default name).
const versionTable = "goose_db_version"

func newProvider(db *sql.DB) (*goose.Provider, error) {
	p, err := goose.NewProvider(goose.DialectMySQL, db, migrations.MySQL(),
		// Only the embedded SQL files: nothing registered globally by another package.
		goose.WithDisableGlobalRegistry(true),
	)
	if err != nil {
		return nil, fmt.Errorf("mysql: migrations: %w", err)
	}
	return p, nil
}

// migrate applies every pending migration. Several processes may run it at once (nodes
// started together with --migrate): a server-side named lock, held on a connection of its
// own for the whole run, lets one migrate while the others wait and then find nothing
// to do.
//
// The lock is taken here rather than handed to goose as a SessionLocker, because goose
// takes a SessionLocker only around applying migrations, not around its first look at
// the database (Provider.Up asks HasPending first, unlocked). That look creates the
// version table and inserts its version-0 row when the table is missing, and MySQL
// commits a CREATE TABLE at once, before the INSERT: a second process starting at the
// same moment saw the table without the row, concluded the database was broken and
// failed with "missing zero version migration" (TestConcurrentMigrate, under load).
func migrate(ctx context.Context, db *sql.DB) (err error) {
	p, err := newProvider(db)
	if err != nil {
		return err
	}
	// Goose needs a connection besides the one holding the lock.
	if n := db.Stats().MaxOpenConnections; n == 1 {
		db.SetMaxOpenConns(2)
		defer db.SetMaxOpenConns(n)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return mapError(fmt.Errorf("migrate: %w", err))
	}
	defer conn.Close()
	if err := lockMigrations(ctx, conn); err != nil {
		return err
	}
	defer func() {
		// Not ctx: a cancelled migration must still release the lock, or the others
		// wait until this connection closes.
		if uerr := unlockMigrations(context.WithoutCancel(ctx), conn); err == nil {
			err = uerr
		}
	}()
	if _, err := p.Up(ctx); err != nil {
		return mapError(fmt.Errorf("migrate: %w", err))
	}
	return nil
}

// checkSchema refuses a database whose schema is not at the latest embedded version.
// It only reads: a database that was never migrated is reported, not initialised.
func checkSchema(ctx context.Context, db *sql.DB) error {
	p, err := newProvider(db)
	if err != nil {
		return err
	}
	sources := p.ListSources()
	want := sources[len(sources)-1].Version
	var found int64
	err = db.QueryRowContext(ctx, "SELECT COALESCE(MAX(version_id), 0) FROM "+versionTable).Scan(&found)
	if err != nil && !serverErrorIs(err, erNoSuchTable) {
		return mapError(fmt.Errorf("read schema version: %w", err))
	}
	return sqlstore.SchemaVersion("mysql", found, want)
}

// The migration lock is per database (hashed: lock names are at most 64 characters), so
// unrelated databases on one server migrate independently.
const (
	migrateLockName = "CONCAT('chronos.migrate.', MD5(DATABASE()))"
	// migrateLockWait is how long one GET_LOCK call waits; the loop around it waits
	// for as long as ctx allows.
	migrateLockWait = 5
)

// lockMigrations takes the migration lock on conn, waiting for as long as ctx allows.
func lockMigrations(ctx context.Context, conn *sql.Conn) error {
	for {
		var got sql.NullInt64
		err := conn.QueryRowContext(ctx, fmt.Sprintf("SELECT GET_LOCK(%s, %d)", migrateLockName, migrateLockWait)).Scan(&got)
		switch {
		case err != nil:
			return mapError(fmt.Errorf("take the migration lock: %w", err))
		case !got.Valid:
			return errors.New("mysql: take the migration lock: GET_LOCK returned NULL")
		case got.Int64 == 1:
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

func unlockMigrations(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, "DO RELEASE_LOCK("+migrateLockName+")")
	return mapError(err)
}
