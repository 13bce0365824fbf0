package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/adapters/internal/claims"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// claimable is the test of a row a claim may take: active, due at the statement's now
// ($1: the injected clock's time, or NULL for the database's), and leased to nobody or
// on a lease that has run out. lease names the parameter of the lease in microseconds.
func claimable(lease string) string {
	return `status = 'active'
	  AND next_fire_at <= coalesce($1::timestamptz, now())
	  AND (claimed_at IS NULL
	       OR claimed_at <= coalesce($1::timestamptz, now()) - ` + lease + `::bigint * interval '1 microsecond')`
}

// claimSQL chooses and leases due alarms in one statement.
//
// The inner SELECT walks alarms_due_idx (next_fire_at WHERE status = 'active') in due
// order, skips rows another claimer has locked, and stops after $4 rows, so its cost is
// the batch, not the table. It is wrapped in ARRAY(...) and matched with = ANY(...)
// rather than written as "IN (SELECT ...)" on purpose: for the IN form, PostgreSQL's
// generic plan of a prepared statement (which pgx's statement cache ends up using) can
// turn into a hash semi join that reads the whole table. ARRAY(...) is an InitPlan that
// runs once, in every plan. See docs/postgres.md and TestClaimGenericPlanUsesDueIndex.
//
// The rows are handed over by ctid, not id: the outer UPDATE then fetches each locked
// row straight from its heap page (a Tid Scan) instead of looking the id up in
// alarms_pkey again (docs/benchmarks.md).
// A ctid is stable here: the inner SELECT has locked the row version it names, and a
// locked, live version can be neither updated by anyone else nor pruned before this
// statement commits. The one row version the outer scan may not find is one that
// LockRows reached by following a concurrent update committed after this statement's
// snapshot: that row is then locked but not leased, and left for the next claim, never
// leased twice.
//
// $1 is the injected clock's time or NULL for the database clock; now() is the start
// of this statement's own transaction, one value for the whole statement, so the due
// test, the lease test and the stamp agree. $3 is the lease in microseconds.
var claimSQL = `
UPDATE alarms SET claimed_by = $2, claimed_at = coalesce($1::timestamptz, now())
WHERE ctid = ANY(ARRAY(
	SELECT ctid FROM alarms
	WHERE ` + claimable("$3") + `
	ORDER BY next_fire_at
	LIMIT $4
	FOR UPDATE SKIP LOCKED
))
RETURNING ` + alarmColumns

// fairClaimSQL is claimSQL taking from the lanes in turn (ports.FairClaim): $5 is every
// lane once, from the claim's Start on (laneCycle), $6 the claim's PerLane. The claimable
// test and the hand-over by ctid are claimSQL's, for the same reasons.
//
// For each lane, in $5's order, the lateral subquery walks alarms_lane_due_idx
// ((hashtext(owner) & 63), next_fire_at) from the lane's oldest due entry, locks what it takes and stops after
// $6 rows. The executor pulls rows lazily: the outer LIMIT stops the nested loop once
// it has $4, so the lanes after the one the batch filled up in are never probed and the
// rows not taken are never locked. The lanes must come in $5's order for that LIMIT to
// stop at the right lane: ORDER BY turn.n says so, and costs no Sort, because a function
// scan WITH ORDINALITY is known to be ordered by its ordinal and a nested loop keeps its
// outer order. See TestFairClaimPlanProbesLanesInTurn.
//
// The lane is no column (migration 00009): the probe names the index's expression,
// written exactly as the index has it, or the planner would not match it (an int4 against
// $5's smallint lanes, which btree's integer operators compare). RETURNING computes it
// again for the rows taken, to tell the store which lanes gave rows (Claimed.Next,
// Claimed.Capped); hashing an owner is cheap next to the update.
var fairClaimSQL = `
UPDATE alarms SET claimed_by = $2, claimed_at = coalesce($1::timestamptz, now())
WHERE ctid = ANY(ARRAY(
	SELECT taken.ctid
	FROM unnest($5::smallint[]) WITH ORDINALITY AS turn(lane, n)
	CROSS JOIN LATERAL (
		SELECT ctid FROM alarms
		WHERE (hashtext(owner) & 63) = turn.lane
		  AND ` + claimable("$3") + `
		ORDER BY next_fire_at
		LIMIT $6
		FOR UPDATE SKIP LOCKED
	) taken
	ORDER BY turn.n
	LIMIT $4
))
RETURNING hashtext(owner) & 63, ` + alarmColumns

// laneCycle is every lane twice over: laneCycle[start:start+ports.Lanes] is each lane
// once, from start on, the order a fair claim visits them in, with nothing to build.
var laneCycle = func() (c [2 * ports.Lanes]int16) {
	for i := range c {
		c[i] = int16(claims.Lane(0, i))
	}
	return c
}()

// ClaimDue leases up to p.Batch due alarms to p.Worker, oldest due first; by lane in
// turn when p.Fair is set.
func (s *Store) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	if err := claims.Check(p); err != nil {
		return ports.Claimed{}, fmt.Errorf("postgres: %w", err)
	}
	c, err := claims.Choose(p,
		func() ([]domain.Alarm, error) { return s.claim(ctx, p) },
		func(taken *claims.Taken) ([]domain.Alarm, error) { return s.claimFair(ctx, p, taken) })
	if err != nil {
		return ports.Claimed{}, err
	}
	if len(c.Alarms) == 0 {
		if c.Now, err = s.Now(ctx); err != nil {
			return ports.Claimed{}, err
		}
		return c, nil
	}
	c.Now = c.Alarms[0].ClaimedAt // every row was stamped with the statement's now
	return c, nil
}

// claim runs claimSQL.
func (s *Store) claim(ctx context.Context, p ports.ClaimParams) ([]domain.Alarm, error) {
	rows, err := s.pool.Query(ctx, claimSQL, s.nowArg(), p.Worker, p.Lease.Microseconds(), p.Batch)
	if err != nil {
		return nil, mapError(err)
	}
	alarms, err := collectAlarms(rows, p.Batch)
	return alarms, mapError(err)
}

// claimFair runs fairClaimSQL and counts the alarms it took from each lane in taken.
func (s *Store) claimFair(ctx context.Context, p ports.ClaimParams, taken *claims.Taken) ([]domain.Alarm, error) {
	rows, err := s.pool.Query(ctx, fairClaimSQL, s.nowArg(), p.Worker, p.Lease.Microseconds(), p.Batch,
		laneCycle[p.Fair.Start:p.Fair.Start+ports.Lanes], p.Fair.PerLane)
	if err != nil {
		return nil, mapError(err)
	}
	alarms, err := collectAlarms(&laneRows{Rows: rows, taken: taken}, p.Batch)
	return alarms, mapError(err)
}

// laneRows reads the rows of fairClaimSQL, "lane, alarmColumns": it counts each row in
// its lane, and the rest goes to the alarm scanner's targets.
type laneRows struct {
	pgx.Rows
	lane  int32
	taken *claims.Taken
	dest  []any
}

func (r *laneRows) Scan(dest ...any) error {
	r.dest = append(append(r.dest[:0], &r.lane), dest...)
	if err := r.Rows.Scan(r.dest...); err != nil {
		return err
	}
	r.taken[r.lane]++
	return nil
}

// extendLeaseSQL moves a lease's claimed_at to now + For - Lease ($5, For - Lease in
// microseconds), on the row found by primary key and only while it still carries the
// fence, exactly as applySQL's fenced UPDATE. $1 is the injected clock's time or NULL
// for the database clock, as in claimSQL. RETURNING gives the stored value, which is
// the new fence.
const extendLeaseSQL = `UPDATE alarms
	SET claimed_at = coalesce($1::timestamptz, now()) + $5::bigint * interval '1 microsecond'
	WHERE id = $2 AND claimed_by = $3 AND claimed_at = $4
	RETURNING claimed_at`

// ExtendLease keeps p.AlarmID leased until now + p.For, fenced on p.Fence: in place of
// the engine's transaction, one statement that computes the new fence and returns it.
func (s *Store) ExtendLease(ctx context.Context, p ports.ExtendLease) (domain.Fence, error) {
	var at time.Time
	err := s.pool.QueryRow(ctx, extendLeaseSQL, s.nowArg(), p.AlarmID,
		nullText(p.Fence.Worker), timestamptz(p.Fence.ClaimedAt), (p.For - p.Lease).Microseconds()).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Fence{}, fmt.Errorf("postgres: extend lease of alarm %q: %w", p.AlarmID, ports.ErrLeaseLost)
	}
	if err != nil {
		return domain.Fence{}, mapError(err)
	}
	return domain.Fence{Worker: p.Fence.Worker, ClaimedAt: at.UTC()}, nil
}

// nextDueSQL reads the first entry of alarms_due_idx that no worker holds. Leased rows
// are skipped (the port explains why); there are at most as many as are in flight.
// Written as ORDER BY ... LIMIT 1 rather than min(): a generic plan of min() made on an
// empty table aggregates over the whole index instead of stopping at its first entry.
const nextDueSQL = `SELECT next_fire_at FROM alarms WHERE status = 'active' AND claimed_by IS NULL
	ORDER BY next_fire_at LIMIT 1`
