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
		return txError(err)
	}
	defer s.turns.release()
	return sqlstore.StdTx(ctx, s.writer, fn, txError)
}

// txError is an error of write's own (a turn, BEGIN, COMMIT), mapped.
func txError(err error) error { return sqlstore.Mapped(mapError(err)) }
