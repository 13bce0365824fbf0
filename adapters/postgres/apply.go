package postgres

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// applySQL writes a whole batch of transitions and their events in one statement, so
// one round trip and one implicit transaction whatever the batch size.
//
// The transitions arrive as parallel arrays ($1..$12, one element per transition) and
// the events as another set ($13..$19, one element per event, each naming its alarm).
// The UPDATE changes a row only while it still carries the transition's lease (or
// unconditionally when the transition is unfenced); the INSERT takes only the events
// of rows the UPDATE returned, so a stale transition writes nothing at all. Under READ
// COMMITTED a row changed concurrently is re-checked against the fence after its lock
// is granted, so a lease taken over meanwhile makes the transition stale, not lost.
//
// "a.id = ANY($1)" repeats the join on purpose: it gives the planner an index condition
// on alarms_pkey. Without it a custom plan (which knows the batch has 1,000 rows) joins
// the batch to alarms by hashing, and reads the whole table sequentially to build the
// hash: measured at 8 ms per batch on 20,000 alarms, growing with the table, and the
// largest cost of a burn-down (docs/benchmarks.md). With it every plan looks the batch
// up by primary key.
//
// Ids in one batch are distinct (the port promises it), so no row is updated twice.
const applySQL = `
WITH t AS (
	SELECT * FROM unnest(
		$1::text[], $2::bool[], $3::text[], $4::timestamptz[],
		$5::text[], $6::timestamptz[], $7::timestamptz[], $8::int[],
		$9::text[], $10::timestamptz[], $11::bool[], $12::timestamptz[]
	) AS t(id, fenced, fence_worker, fence_at,
		status, next_fire_at, scheduled_for, failure_count,
		last_error, last_fired_at, keep_lease, updated_at)
), applied AS (
	UPDATE alarms a SET
		status        = t.status,
		next_fire_at  = t.next_fire_at,
		scheduled_for = t.scheduled_for,
		failure_count = t.failure_count,
		last_error    = t.last_error,
		last_fired_at = t.last_fired_at,
		updated_at    = t.updated_at,
		claimed_by    = CASE WHEN t.keep_lease THEN a.claimed_by END,
		claimed_at    = CASE WHEN t.keep_lease THEN a.claimed_at END
	FROM t
	WHERE a.id = t.id
	  AND a.id = ANY($1::text[])
	  AND (NOT t.fenced OR (a.claimed_by = t.fence_worker AND a.claimed_at = t.fence_at))
	RETURNING a.id
), events AS (
	INSERT INTO alarm_events (alarm_id, type, at, attempt, scheduled_for, worker, message)
	SELECT e.alarm_id, e.type, e.at, e.attempt, e.scheduled_for, e.worker, e.message
	FROM unnest(
		$13::text[], $14::text[], $15::timestamptz[], $16::int[],
		$17::timestamptz[], $18::text[], $19::text[]
	) WITH ORDINALITY AS e(alarm_id, type, at, attempt, scheduled_for, worker, message, ord)
	WHERE e.alarm_id IN (SELECT id FROM applied)
	ORDER BY e.ord -- event ids follow the order the domain listed them in
)
SELECT id FROM applied`

// Apply writes a batch of transitions, each fenced on its lease, with their events.
func (s *Store) Apply(ctx context.Context, ts []domain.Transition) (ports.ApplyResult, error) {
	if len(ts) == 0 {
		return ports.ApplyResult{}, nil
	}
	args := applyArgs(ts)
	var applied map[string]bool
	err := withRetry(ctx, func() error {
		applied = make(map[string]bool, len(ts))
		rows, err := s.pool.Query(ctx, applySQL, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			applied[id] = true
		}
		return rows.Err()
	})
	if err != nil {
		return ports.ApplyResult{}, mapError(err)
	}
	res := ports.ApplyResult{Applied: len(applied)}
	for _, t := range ts {
		if !applied[t.AlarmID] {
			res.Stale = append(res.Stale, t.AlarmID)
		}
	}
	return res, nil
}

// applyArgs lays a batch out as applySQL's arrays. Transitions are sorted by alarm id
// so that concurrent batches touching the same rows lock them in the same order, which
// keeps them from deadlocking (withRetry covers any plan that does not follow it).
func applyArgs(ts []domain.Transition) []any {
	ts = slices.Clone(ts)
	slices.SortFunc(ts, func(a, b domain.Transition) int { return strings.Compare(a.AlarmID, b.AlarmID) })

	n := len(ts)
	var (
		ids, fenceWorkers, statuses, lastErrors = make([]string, n), make([]*string, n), make([]string, n), make([]string, n)
		fenced, keepLease                       = make([]bool, n), make([]bool, n)
		fenceAts, nextFireAts, scheduledFors    = make([]*time.Time, n), make([]*time.Time, n), make([]*time.Time, n)
		lastFiredAts, updatedAts                = make([]*time.Time, n), make([]*time.Time, n)
		failureCounts                           = make([]int32, n)

		evAlarmIDs, evTypes, evWorkers, evMessages []string
		evAts, evScheduledFors                     []*time.Time
		evAttempts                                 []int32
	)
	for i, t := range ts {
		ids[i] = t.AlarmID
		// A zero fence means unfenced. Any other fence must match the row exactly; an
		// empty worker becomes NULL, which matches nothing (a lease always has both).
		fenced[i] = !t.Fence.IsZero()
		fenceWorkers[i], fenceAts[i] = textArg(t.Fence.Worker), timeArg(t.Fence.ClaimedAt)
		statuses[i] = string(t.Status)
		nextFireAts[i], scheduledFors[i] = timeArg(t.NextFireAt), timeArg(t.ScheduledFor)
		failureCounts[i] = int32(t.FailureCount)
		lastErrors[i] = t.LastError
		lastFiredAts[i], updatedAts[i] = timeArg(t.LastFiredAt), timeArg(t.UpdatedAt)
		keepLease[i] = t.KeepLease
		for _, e := range t.Events {
			// The transition owns its events: they belong to its alarm whatever
			// e.AlarmID says, so a stale transition can never leak one.
			evAlarmIDs = append(evAlarmIDs, t.AlarmID)
			evTypes = append(evTypes, string(e.Type))
			evAts = append(evAts, timeArg(e.At))
			evAttempts = append(evAttempts, int32(e.Attempt))
			evScheduledFors = append(evScheduledFors, timeArg(e.ScheduledFor))
			evWorkers = append(evWorkers, e.Worker)
			evMessages = append(evMessages, e.Message)
		}
	}
	return []any{
		ids, fenced, fenceWorkers, fenceAts,
		statuses, nextFireAts, scheduledFors, failureCounts,
		lastErrors, lastFiredAts, keepLease, updatedAts,
		nonNil(evAlarmIDs), nonNil(evTypes), nonNil(evAts), nonNil(evAttempts),
		nonNil(evScheduledFors), nonNil(evWorkers), nonNil(evMessages),
	}
}

// nonNil makes an empty slice an empty array rather than NULL (unnest of NULL is fine,
// but an explicit empty array says what is meant).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// withRetry runs fn again, up to maxAttempts times in all, when PostgreSQL rolled it
// back for a deadlock or serialization failure. fn must be safe to re-run: it is one
// statement or one transaction that had no effect.
func withRetry(ctx context.Context, fn func() error) error {
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || !retryable(err) || attempt == maxAttempts || ctx.Err() != nil {
			return err
		}
	}
}
