package mysql

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// claimWalkSQL reads the clock, chooses the batch and looks past it, in one statement.
//
// Its first row is the header: the store's now (the injected clock's, or
// UTC_TIMESTAMP(6), which MySQL and MariaDB evaluate once per statement, so every
// mention below is the same instant) and the earliest next_fire_at after now among
// active alarms: the first alarms_due entry past the due range, one index entry.
//
// The other rows are the walk: alarms_due (status, next_fire_at) from the oldest due
// entry, stopping after claimWalkFactor batches, so its cost is those plus the leased
// rows at the head of the range, never the table. ORDER BY ends with id so ties are
// broken the same way by every claimer; InnoDB secondary index entries end with the
// primary key, so the order is still the index's and no sort is needed (docs/mysql.md
// has the EXPLAIN). It is a plain read: it locks nothing.
//
// Parameters: the injected now (NULL: the database clock) twice, the injected lease
// expiry (NULL: now minus the lease) and the lease in microseconds, the walk's limit.
const claimWalkSQL = `SELECT NULL AS id, CAST(COALESCE(?, UTC_TIMESTAMP(6)) AS DATETIME(6)) AS at,
	(SELECT next_fire_at FROM alarms FORCE INDEX (alarms_due)
		WHERE status = 'active' AND next_fire_at > CAST(COALESCE(?, UTC_TIMESTAMP(6)) AS DATETIME(6))
		ORDER BY next_fire_at LIMIT 1) AS next_after
UNION ALL
(SELECT id, next_fire_at, NULL FROM alarms FORCE INDEX (alarms_due)
	WHERE status = 'active' AND next_fire_at <= CAST(COALESCE(?, UTC_TIMESTAMP(6)) AS DATETIME(6))
	  AND (claimed_at IS NULL
	       OR claimed_at <= CAST(COALESCE(?, UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND) AS DATETIME(6)))
	ORDER BY next_fire_at, id
	LIMIT ?)`

// claimWalkFactor is how many batches the claim's walk chooses from (see claimLockSQL).
const claimWalkFactor = 2

// claimLockSQL locks the rows the walk chose, by primary key, and reads them whole,
// skipping any another transaction holds (a concurrent claimer, an Apply, an owner's
// action). The candidates are a derived table of the walk's ids, in the walk's order
// (oldest due first), padded with NULLs to bucket(n) rows so that the statement runs
// prepared (buckets.go); a NULL id joins nothing. STRAIGHT_JOIN and FORCE INDEX
// (PRIMARY) pin the plan to "each candidate by primary key, in order"; LIMIT without
// ORDER BY stops once the batch is locked, so no row beyond it is locked. The WHERE is
// tested again on each row under its lock, against its latest committed version: a
// row another claimer leased, or an owner paused, after the walk read it is not taken.
// Only clustered index records are locked, and those that fail the WHERE are released
// at once (READ COMMITTED), so nothing is held but the batch.
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
// The walk chooses claimWalkFactor batches and the locking read stops once it holds
// one. The walk takes no locks, so claimers running at the same moment walk the same
// head of the range: with a walk of one batch they split it under SKIP LOCKED, each
// getting about half (two nodes: 0.0044 commits per fire against 0.0020 for one). With
// two batches to choose from, the later claimer skips the earlier one's locked rows and
// fills its batch from the rest: two nodes on MariaDB went from ~21,600 to ~25,000
// fires/s at 0.0021 commits per fire, and one node did not measurably change
// (docs/benchmarks.md). The price is one more batch of index entries walked per claim.
//
// It selects every column, not just the id: the rows stay locked until commit, so what
// it returns plus the lease the UPDATE stamps is exactly what the table then holds. That
// saves the read-back PostgreSQL gets from RETURNING and MySQL has no equivalent for.
func claimLockSQL(candidates int) string {
	var q strings.Builder
	q.WriteString(`SELECT ` + qualified("a", alarmColumns) + ` FROM (SELECT ? AS id`)
	for range candidates - 1 {
		q.WriteString(` UNION ALL SELECT ?`)
	}
	q.WriteString(`) candidates
	STRAIGHT_JOIN alarms a FORCE INDEX (PRIMARY) ON a.id = candidates.id
	WHERE a.status = 'active' AND a.next_fire_at <= ? AND (a.claimed_at IS NULL OR a.claimed_at <= ?)
	LIMIT ?
	FOR UPDATE SKIP LOCKED`)
	return q.String()
}

// claimWalk is what claimWalkSQL read.
type claimWalk struct {
	now       time.Time
	nextAfter time.Time // zero: no active alarm after now
	ids       []string  // oldest due first
}

// claimWalkArgs are claimWalkSQL's parameters for a batch of batch alarms: now and
// expired are the injected clock's instant and lease expiry, or nil for the database's.
func claimWalkArgs(now, expired any, lease time.Duration, batch int) []any {
	return []any{now, now, now, expired, lease.Microseconds(), claimWalkFactor * batch}
}

// walkDue runs claimWalkSQL for a batch of batch alarms.
func (s *Store) walkDue(ctx context.Context, tx batchTx, lease time.Duration, batch int) (claimWalk, error) {
	var now, expired any // NULL: the statement reads the database clock
	if s.clock != nil {
		n := micro(s.clock.Now())
		now, expired = n, micro(n.Add(-lease))
	}
	rows, err := tx.query(ctx, claimWalkSQL, claimWalkArgs(now, expired, lease, batch)...)
	if err != nil {
		return claimWalk{}, err
	}
	defer rows.Close()
	type candidate struct {
		id string
		at time.Time
	}
	var (
		w      claimWalk
		header bool
		cands  []candidate
	)
	for rows.Next() {
		var (
			id        sql.NullString
			at, after sql.NullTime
		)
		if err := rows.Scan(&id, &at, &after); err != nil {
			return claimWalk{}, err
		}
		if !id.Valid {
			header = true
			w.now, w.nextAfter = at.Time.UTC(), after.Time.UTC()
			if !after.Valid {
				w.nextAfter = time.Time{}
			}
			continue
		}
		cands = append(cands, candidate{id.String, at.Time})
	}
	if err := rows.Err(); err != nil {
		return claimWalk{}, err
	}
	if !header {
		return claimWalk{}, errors.New("mysql: claim: the walk returned no clock row")
	}
	// UNION ALL promises no order between its parts' rows; the walk's is restored here.
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(a.at.Compare(b.at), strings.Compare(a.id, b.id))
	})
	for _, c := range cands {
		w.ids = append(w.ids, c.id)
	}
	return w, nil
}

// ClaimDue leases up to p.Batch due alarms to p.Worker, oldest due first.
//
// One READ COMMITTED transaction: read the clock (database or injected) and choose the
// candidates (claimWalkSQL), so the due test, the lease-expiry test, the stamp and
// Claimed.Now are one instant; lock the batch among them (claimLockSQL); stamp the
// lease on exactly those ids; commit. SKIP LOCKED makes concurrent claimers (goroutines
// or nodes) take disjoint rows without waiting on each other; one whose walk chose only
// rows others have just locked gets fewer (or none) and the dispatcher claims again. A
// deadlock victim is run again from the start (see inTx).
//
// When the walk found fewer candidates than it may choose, it saw every due, unleased
// alarm; if the claim then took fewer than the batch, it took every one of them no
// other transaction held, and Claimed.NextRead says so, with Claimed.Next the first
// alarms_due entry after now. The dispatcher then sleeps until Next without asking
// NextDue, whose walk would step again over every leased row at the head of the due
// range (under a steady stream, every alarm in flight: docs/mysql.md).
func (s *Store) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	if p.Worker == "" {
		return ports.Claimed{}, errors.New("mysql: claim: worker is required")
	}
	if p.Batch <= 0 {
		return ports.Claimed{}, errors.New("mysql: claim: batch must be positive")
	}
	var out ports.Claimed
	err := s.inTx(ctx, func(sqlTx *sql.Tx) error {
		tx := s.batch(sqlTx)
		w, err := s.walkDue(ctx, tx, p.Lease, p.Batch)
		if err != nil {
			return err
		}
		alarms := []domain.Alarm{}
		if len(w.ids) > 0 {
			expired := micro(w.now.Add(-p.Lease))
			args, _ := paddedIn(w.ids)
			rows, err := tx.query(ctx, claimLockSQL(len(args)), append(args, w.now, expired, p.Batch)...)
			if err != nil {
				return err
			}
			if alarms, err = scanAlarms(rows); err != nil {
				return err
			}
			// Handed out oldest due first, whatever order the join produced.
			slices.SortFunc(alarms, func(a, b domain.Alarm) int {
				return cmp.Or(a.NextFireAt.Compare(b.NextFireAt), strings.Compare(a.ID, b.ID))
			})
			if err := stampLease(ctx, tx, alarms, p.Worker, w.now); err != nil {
				return err
			}
		}
		out = ports.Claimed{Alarms: alarms, Now: w.now}
		if len(w.ids) < claimWalkFactor*p.Batch && len(alarms) < p.Batch {
			out.NextRead, out.Next = true, w.nextAfter
		}
		return nil
	})
	if err != nil {
		return ports.Claimed{}, mapError(err)
	}
	s.stmts.prepareQueued(ctx)
	return out, nil
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
