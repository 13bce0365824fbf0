package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/claims"
	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// claimWalkSQL chooses the batch: it walks alarms_due (status, next_fire_at) from the
// oldest due entry and stops after the batch, so its cost is the batch plus the leased
// rows at the head of the range, never the table. ORDER BY ends with id so ties are
// broken the same way by every claimer; InnoDB secondary index entries end with the
// primary key, so the order is still the index's and no sort is needed
// (docs/mysql.md has the EXPLAIN).
const claimWalkSQL = `SELECT id FROM alarms
	WHERE status = 'active' AND next_fire_at <= ? AND (claimed_at IS NULL OR claimed_at <= ?)
	ORDER BY next_fire_at, id
	LIMIT ?`

// claimSQL locks the rows claimWalkSQL chooses, by primary key, and reads them whole,
// skipping any another transaction holds (a concurrent claimer, an Apply, an owner's
// action). The walk is a derived table, so it runs as a plain, non-locking read: a
// locking clause does not lock the rows a nested subquery reads without one of its own
// (MySQL and MariaDB alike). STRAIGHT_JOIN and FORCE INDEX (PRIMARY) pin the plan to
// "walk first, then each chosen row by primary key": written as IN (subquery), with the
// claim's condition repeated outside, MariaDB planned the outer read as a range scan of
// alarms_due when it expected few rows due, which would lock its way along the index
// again. The WHERE is tested again on each chosen row under its lock, against its latest
// committed version: a row another claimer leased, or an owner paused, after the walk
// read it is not taken. Only clustered index records are locked, and those that fail the
// WHERE are released at once (READ COMMITTED), so nothing is held but the batch.
//
// Why the walk must not lock (SELECT ... ORDER BY ... LIMIT ? FOR UPDATE SKIP LOCKED
// over alarms_due, as the claim used to be): InnoDB keeps the lock on every secondary
// index entry a locking scan steps on until the transaction ends, even at READ
// COMMITTED and even when the row then fails the WHERE. The head of the due range holds
// the batches still in flight (active, leased, their outcomes not yet applied), so each
// claim held their alarms_due entries, and every Apply of such a batch (which must
// rewrite those entries: status and next_fire_at change) waited for the claim to
// commit: ~9 s of lock waits in a 14 s burn-down (docs/benchmarks.md).
//
// The walk chooses claimWalkFactor batches and the locking read stops once it holds one
// (LIMIT without ORDER BY, so it locks no row beyond the batch; the materialized walk is
// read in its own order, and were it not, the batch would still come from the oldest
// two batches due). The walk takes no locks, so claimers running at the same moment walk
// the same head of the range: with a walk of one batch they split it under SKIP LOCKED,
// each getting about half (two nodes: 0.0044 commits per fire against 0.0020 for one).
// With two batches to choose from, the later claimer skips the earlier one's locked rows
// and fills its batch from the rest: two nodes on MariaDB went from ~21,600 to ~25,000
// fires/s at 0.0021 commits per fire, and one node did not measurably change
// (docs/benchmarks.md). The price is one more batch of index entries walked per claim.
//
// It selects every column, not just the id: the rows stay locked until commit, so what
// it returns plus the lease the UPDATE stamps is exactly what the table then holds. That
// saves the read-back PostgreSQL gets from RETURNING and MySQL has no equivalent for.
var claimSQL = `SELECT ` + qualified("a", alarmColumns) + `
	FROM (` + claimWalkSQL + `) candidates
	STRAIGHT_JOIN alarms a FORCE INDEX (PRIMARY) ON a.id = candidates.id
	WHERE a.status = 'active' AND a.next_fire_at <= ? AND (a.claimed_at IS NULL OR a.claimed_at <= ?)
	LIMIT ?
	FOR UPDATE SKIP LOCKED`

// claimWalkFactor is how many batches the claim's walk chooses from (see claimSQL).
const claimWalkFactor = 2

// claimArgs are claimSQL's parameters: the walk's, then the locking read's.
func claimArgs(now, expired time.Time, batch int) []any {
	return []any{now, expired, claimWalkFactor * batch, now, expired, batch}
}

// ClaimDue leases up to p.Batch due alarms to p.Worker, oldest due first; with p.Fair,
// shared between lanes (lockFair).
//
// One READ COMMITTED transaction: read the clock (database or injected) once, so the
// due test, the lease-expiry test, the stamp and Claimed.Now are one instant; choose and
// lock the batch (claimSQL); stamp the lease on exactly those ids; commit. SKIP LOCKED
// makes concurrent claimers (goroutines or nodes) take disjoint rows without waiting on
// each other; one whose walk chose only rows others have just locked gets fewer (or
// none) and the dispatcher claims again. A deadlock victim is run again from the start (see
// inTx).
func (s *Store) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	if err := claims.Check(p); err != nil {
		return ports.Claimed{}, fmt.Errorf("mysql: %w", err)
	}
	if p.Batch <= 0 {
		return ports.Claimed{}, errors.New("mysql: claim: batch must be positive")
	}
	var out ports.Claimed
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		now, err := s.now(ctx, tx)
		if err != nil {
			return err
		}
		expired := micro(now.Add(-p.Lease))
		out, err = claims.Choose(p, func() ([]domain.Alarm, error) {
			return s.lockDue(ctx, tx, now, expired, p.Batch)
		}, func(taken *claims.Taken) ([]domain.Alarm, error) {
			return s.lockFair(ctx, tx, now, expired, p.Batch, *p.Fair, taken)
		})
		if err != nil {
			return err
		}
		out.Now = now
		return stampLease(ctx, s.batch(tx), out.Alarms, p.Worker, now)
	})
	if err != nil {
		return ports.Claimed{}, mapError(err)
	}
	s.stmts.prepareQueued(ctx)
	return out, nil
}

// lockDue chooses and locks the batch of a plain claim (claimSQL).
func (s *Store) lockDue(ctx context.Context, tx *sql.Tx, now, expired time.Time, batch int) ([]domain.Alarm, error) {
	rows, err := s.batch(tx).query(ctx, claimSQL, claimArgs(now, expired, batch)...)
	if err != nil {
		return nil, err
	}
	return scanAlarms(rows)
}

// stampLease leases the locked alarms to worker at now, in the table and in alarms.
func stampLease(ctx context.Context, tx batchTx, alarms []domain.Alarm, worker string, now time.Time) error {
	if len(alarms) == 0 {
		return nil
	}
	ids := make([]string, len(alarms))
	for i, a := range alarms {
		ids[i] = a.ID
	}
	idArgs, marks := paddedIn(ids)
	res, err := tx.exec(ctx,
		`UPDATE alarms SET claimed_by = ?, claimed_at = ? WHERE id IN (`+marks+`)`, append([]any{worker, now}, idArgs...)...)
	if err != nil {
		return err
	}
	// The rows are locked by this transaction, so every one must match.
	if n, err := res.RowsAffected(); err != nil || n != int64(len(alarms)) {
		return fmt.Errorf("claim: stamped %d of %d locked rows (%v)", n, len(alarms), err)
	}
	for i := range alarms {
		alarms[i].ClaimedBy, alarms[i].ClaimedAt = worker, now
	}
	return nil
}

// extendLeaseSQL moves a lease's claimed_at, on the row found by primary key and only
// while it still carries the fence, as Apply's fenced UPDATE does. With clientFoundRows
// it counts the row even when the new value equals the old.
const extendLeaseSQL = `UPDATE alarms SET claimed_at = ? WHERE id = ? AND claimed_by = ? AND claimed_at = ?`

// ExtendLease keeps p.AlarmID leased until now + p.For, fenced on p.Fence.
//
// There is no RETURNING, so the new claimed_at is computed here as the claim computes
// its stamp: the clock (database or injected) read in the transaction, plus For - Lease,
// truncated to the store's precision; DATETIME(6) then keeps exactly that value, and it
// is returned as the new fence.
func (s *Store) ExtendLease(ctx context.Context, p ports.ExtendLease) (domain.Fence, error) {
	var f domain.Fence
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		now, err := s.now(ctx, tx)
		if err != nil {
			return err
		}
		at := micro(now.Add(p.For - p.Lease))
		n, err := sqlrow.Affected(tx.ExecContext(ctx, extendLeaseSQL, at, p.AlarmID, stringArg(p.Fence.Worker), timeArg(p.Fence.ClaimedAt)))
		if err != nil {
			return err
		}
		if n == 0 {
			return final{fmt.Errorf("mysql: extend lease of alarm %q: %w", p.AlarmID, ports.ErrLeaseLost)}
		}
		f = domain.Fence{Worker: p.Fence.Worker, ClaimedAt: at}
		return nil
	})
	return f, mapError(err)
}

// nextDueSQL reads the first unleased entry of alarms_due. ORDER BY ... LIMIT 1 rather
// than MIN(): claimed_by is not in the index, and the ordered form stops at the first
// unleased row instead of scanning every active one.
const nextDueSQL = `SELECT next_fire_at FROM alarms
	WHERE status = 'active' AND claimed_by IS NULL
	ORDER BY next_fire_at
	LIMIT 1`

// NextDue returns the earliest next_fire_at among unleased active alarms.
func (s *Store) NextDue(ctx context.Context) (time.Time, bool, error) {
	var at time.Time
	err := s.db.QueryRowContext(ctx, nextDueSQL).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, mapError(err)
	}
	return at.UTC(), true, nil
}
