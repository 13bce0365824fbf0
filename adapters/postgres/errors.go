package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chronoshq/chronos/ports"
)

// SQLSTATE codes the store reacts to.
const (
	codeUniqueViolation      = "23505"
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
)

// mapError is the one place driver errors become portable ones. Context errors are
// returned as the bare sentinels, whatever pgx wrapped around them.
func mapError(err error) error {
	switch {
	case err == nil:
		return nil
	case isContextError(err):
		return contextError(err)
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("postgres: %w", ports.ErrNotFound)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == codeUniqueViolation {
		return fmt.Errorf("postgres: %w: %s", ports.ErrConflict, pgErr.ConstraintName)
	}
	return fmt.Errorf("postgres: %w", err)
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func contextError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return context.Canceled
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

// notFound reports a missing (or not owned) row, naming it.
func notFound(what, id string) error {
	return fmt.Errorf("postgres: %s %q: %w", what, id, ports.ErrNotFound)
}
