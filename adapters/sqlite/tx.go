package sqlite

import (
	"context"
	"database/sql"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
)

// write runs fn in one transaction on the writer connection. The writer DSN makes every
// transaction BEGIN IMMEDIATE, so fn holds the database's write lock from its first
// statement: what it reads cannot change before it writes, in this process or another.
//
// fn maps its own driver errors (so it can return errors of its callers untouched);
// write maps only its own, marked sqlstore.Mapped. Any error from fn rolls back.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.writeTurn(ctx, false, fn)
}

// writeTurn is write, with claim=true for ClaimDue: it goes before every other writer
// waiting for the connection (writeTurns).
func (s *Store) writeTurn(ctx context.Context, claim bool, fn func(tx *sql.Tx) error) error {
	if err := s.turns.acquire(ctx, claim); err != nil {
		return sqlstore.Mapped(mapError(err))
	}
	defer s.turns.release()
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return sqlstore.Mapped(mapError(err))
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback() // the error that matters is fn's; a failed rollback leaves nothing behind
		return err
	}
	return sqlstore.Mapped(mapError(tx.Commit()))
}
