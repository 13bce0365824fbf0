package mysql

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
)

// Deadlock retries. Concurrent claimers and appliers lock disjoint rows most of the time,
// but InnoDB still picks deadlock victims now and then (gap and insert-intention locks,
// index-order differences between statements). A victim's transaction was rolled back
// whole, so it is simply run again after a short, jittered pause that de-synchronises
// the claimers that collided.
const (
	txAttempts  = 6
	retryBase   = 5 * time.Millisecond
	retryMaxGap = 200 * time.Millisecond
)

// inTx runs fn in a transaction (READ COMMITTED: see connector.go) and commits it,
// running it again from the start when the server rolled it back as a deadlock victim
// or on a lock wait timeout (retry). fn must therefore be safe to repeat: it must not
// keep state across attempts except what it recomputes.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.retry(ctx, func() error {
		return sqlstore.StdTx(ctx, s.db, fn, func(err error) error { return err })
	})
}

// retry runs fn, and runs it again after a short jittered pause when it failed as a
// deadlock victim or on a lock wait timeout, up to txAttempts in all. fn is a whole
// transaction (inTx) or a single statement in autocommit: either way the server undid
// all of it, so running it again is safe. A lone INSERT needs this too: concurrent
// inserts of one unique key (an idempotency key) take shared and insert-intention locks
// on the index that InnoDB can resolve only by picking a victim.
func (s *Store) retry(ctx context.Context, fn func() error) error {
	return sqlstore.Retry(ctx, txAttempts, retryable, func(attempt int) time.Duration {
		s.retries.Add(1)
		return retryDelay(attempt)
	}, fn)
}

// retryDelay is a random pause in [d/2, d) where d doubles per attempt up to retryMaxGap.
func retryDelay(attempt int) time.Duration {
	d := retryBase << (attempt - 1)
	if d > retryMaxGap || d <= 0 {
		d = retryMaxGap
	}
	return d/2 + rand.N(d/2)
}
