package sqlite

import (
	"database/sql"
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/ports"
)

// ErrBusy is wrapped by errors from a lock that stayed held past the busy timeout: some
// other connection or process kept a write transaction open too long.
var ErrBusy = errors.New("database is locked (SQLITE_BUSY): another connection or process held the lock past the busy timeout")

// mapError is the one place driver errors become portable ones (sqlstore.MapDriverError):
// what is not already mapped or a context error is prefixed "sqlite: " and wraps the
// portable sentinel when there is one, keeping the driver's text for people.
func mapError(err error) error {
	return sqlstore.MapDriverError("sqlite", err, sql.ErrNoRows, func(err error) error {
		var e *sqlite.Error
		if !errors.As(err, &e) {
			return nil
		}
		// err.Error(), not e.Error(): keep what the caller wrapped around the driver's
		// error (which file, which step).
		switch e.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("sqlite: %w: %s", ports.ErrConflict, err.Error())
		}
		switch e.Code() & 0xff { // the primary result code, whatever the extension
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("sqlite: %w: %w: %s", ports.ErrUnavailable, ErrBusy, err.Error())
		case sqlite3.SQLITE_FULL:
			// The file (or its WAL) could not grow: the filesystem is out of space
			// (ENOSPC) or max_page_count was reached. SQLite rolled the statement back;
			// the file is intact, and the same write succeeds once there is room.
			return fmt.Errorf("sqlite: %w: %w: %s", ports.ErrUnavailable, ports.ErrStorageFull, err.Error())
		}
		return nil
	})
}
