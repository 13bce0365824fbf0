package postgres

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/ports"
)

// SQLSTATE codes the store reacts to.
const (
	codeUniqueViolation      = "23505"
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
	codeDiskFull             = "53100" // disk_full: the server could not extend a file
)

// mapError is the one place driver errors become portable ones (sqlstore.MapDriverError).
func mapError(err error) error {
	return sqlstore.MapDriverError("postgres", err, pgx.ErrNoRows, func(err error) error {
		var pgErr *pgconn.PgError
		switch {
		case errors.As(err, &pgErr) && pgErr.Code == codeUniqueViolation:
			return fmt.Errorf("postgres: %w: %s", ports.ErrConflict, pgErr.ConstraintName)
		case errors.As(err, &pgErr) && pgErr.Code == codeDiskFull:
			// The transaction was rolled back; it succeeds once the server has room.
			return fmt.Errorf("postgres: %w: %w: %w", ports.ErrUnavailable, ports.ErrStorageFull, err)
		case unreachable(err):
			return fmt.Errorf("postgres: %w: %w", ports.ErrUnavailable, err)
		}
		return nil
	})
}

// unreachable reports errors that say the server could not be reached or is going
// away, rather than that the statement was wrong: connecting failed, the connection
// broke, or the server is shutting down, starting up or out of connections.
func unreachable(err error) bool {
	var connectErr *pgconn.ConnectError
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &connectErr), sqlstore.Disconnected(err), pgconn.Timeout(err):
		return true
	case errors.As(err, &pgErr):
		// Class 08: connection exception; 57P0x: admin or crash shutdown, cannot
		// connect now; 53300: too many connections.
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P0") || pgErr.Code == "53300"
	}
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// retryable reports errors after which the whole statement or transaction can simply
// run again: PostgreSQL rolled it back and nothing of it was applied.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) &&
		(pgErr.Code == codeSerializationFailure || pgErr.Code == codeDeadlockDetected)
}

// maxAttempts bounds retries of retryable failures (and of the idempotent-create
// read-back race). Each retry follows a rollback, so contention cannot spin for long.
const maxAttempts = 3
