package mysql

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/ports"
)

// Server error numbers the store acts on.
const (
	erDiskFull        = 1021 // ER_DISK_FULL: the server is out of disk space
	erDupEntry        = 1062 // ER_DUP_ENTRY: a unique key refused the row
	erRecordFileFull  = 1114 // ER_RECORD_FILE_FULL: InnoDB could not extend the table's tablespace
	erNoSuchTable     = 1146 // ER_NO_SUCH_TABLE
	erLockWaitTimeout = 1205 // ER_LOCK_WAIT_TIMEOUT: gave up waiting for a row lock
	erLockDeadlock    = 1213 // ER_LOCK_DEADLOCK: chosen as a deadlock victim, rolled back
)

// mapError is the one place driver errors become the portable errors of package ports
// (sqlstore.MapDriverError). The driver reports a statement that its context ended as
// the context's error, not as a broken connection.
func mapError(err error) error {
	return sqlstore.MapDriverError("mysql", err, sql.ErrNoRows, func(err error) error {
		switch {
		case serverErrorIs(err, erDupEntry):
			return fmt.Errorf("mysql: %w: %w", ports.ErrConflict, err)
		case serverErrorIs(err, erDiskFull), serverErrorIs(err, erRecordFileFull):
			// The statement did not apply; it succeeds once the server has room.
			return fmt.Errorf("mysql: %w: %w: %w", ports.ErrUnavailable, ports.ErrStorageFull, err)
		case unreachable(err):
			return fmt.Errorf("mysql: %w: %w", ports.ErrUnavailable, err)
		}
		return nil
	})
}

// unreachable reports errors that say the server could not be reached, broke the
// connection, or kept a lock past innodb_lock_wait_timeout even after retries: the
// statement did not apply and may succeed later.
func unreachable(err error) bool {
	return sqlstore.Disconnected(err) ||
		errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, sql.ErrConnDone) ||
		serverErrorIs(err, erLockWaitTimeout)
}

// serverErrorIs reports whether err is the server error number n.
func serverErrorIs(err error, n uint16) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == n
}

// retryable reports whether the server rolled back (a deadlock victim) or gave up on
// (a lock wait timeout) a transaction that is safe to run again from the start.
func retryable(err error) bool {
	return serverErrorIs(err, erLockDeadlock) || serverErrorIs(err, erLockWaitTimeout)
}
