package postgres

import (
	"context"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
)

// applySQL writes a whole batch of transitions and their events in one statement, so
// one round trip and one implicit transaction whatever the batch size.
//
// The transitions arrive as parallel arrays ($1..$16, one element per transition) and
// the events as another set ($17..$28, one element per event, each naming its alarm, with
// the attempt log's columns NULL on an event that is no attempt).
// The UPDATE changes a row only while it still carries the transition's lease (or
// unconditionally when the transition is unfenced); the INSERT takes only the events
// of rows the UPDATE returned, so a stale transition writes nothing at all. Under READ
// COMMITTED a row changed concurrently is re-checked against the fence after its lock
// is granted, so a lease taken over meanwhile makes the transition stale, not lost.
//
// "a.id = ANY($1)" repeats the join on purpose: it gives the planner an index condition
// on alarms_pkey, so every plan looks the batch up by primary key; without it a custom
// plan hashed the batch and read the whole table sequentially (docs/benchmarks.md).
//
// Ids in one batch are distinct (the port promises it), so no row is updated twice.
const applySQL = `
WITH t AS (
	SELECT * FROM unnest(
		$1::text[], $2::bool[], $3::text[], $4::timestamptz[],
		$5::text[], $6::timestamptz[], $7::timestamptz[], $8::int[],
		$9::text[], $10::timestamptz[], $11::bool[], $12::timestamptz[],
		$13::int[], $14::int[], $15::text[], $16::timestamptz[]
	) AS t(id, fenced, fence_worker, fence_at,
		status, next_fire_at, scheduled_for, failure_count,
		last_error, last_fired_at, keep_lease, updated_at,
		fire_count, skip_streak, paused_reason, paused_until)
), applied AS (
	UPDATE alarms a SET
		status        = t.status,
		next_fire_at  = t.next_fire_at,
		scheduled_for = t.scheduled_for,
		failure_count = t.failure_count,
		last_error    = t.last_error,
		last_fired_at = t.last_fired_at,
		fire_count    = t.fire_count,
		skip_streak   = t.skip_streak,
		paused_reason = t.paused_reason,
		paused_until  = t.paused_until,
		updated_at    = t.updated_at,
		claimed_by    = CASE WHEN t.keep_lease THEN a.claimed_by END,
		claimed_at    = CASE WHEN t.keep_lease THEN a.claimed_at END
	FROM t
	WHERE a.id = t.id
	  AND a.id = ANY($1::text[])
	  AND (NOT t.fenced OR (a.claimed_by = t.fence_worker AND a.claimed_at = t.fence_at))
	RETURNING a.id
), events AS (
	INSERT INTO alarm_events (alarm_id, type, at, attempt, scheduled_for, worker, message,
		duration_us, http_status, response_type, response_body, response_truncated)
	SELECT e.alarm_id, e.type, e.at, e.attempt, e.scheduled_for, e.worker, e.message,
		e.duration_us, e.http_status, e.response_type, e.response_body, e.response_truncated
	FROM unnest(
		$17::text[], $18::text[], $19::timestamptz[], $20::int[],
		$21::timestamptz[], $22::text[], $23::text[],
		$24::bigint[], $25::int[], $26::text[], $27::bytea[], $28::bool[]
	) WITH ORDINALITY AS e(alarm_id, type, at, attempt, scheduled_for, worker, message,
		duration_us, http_status, response_type, response_body, response_truncated, ord)
	WHERE e.alarm_id IN (SELECT id FROM applied)
	ORDER BY e.ord -- event ids follow the order the domain listed them in
)
SELECT id FROM applied`

// applyBatch is the engine's ApplyBatch. A batch without notices is applySQL alone, in
// its implicit transaction. One with notices runs applySQL and then, in the same
// explicit transaction, an INSERT for the notice of each transition applySQL returned:
// a notice costs a round trip, but only the rare batch that carries one pays it.
func (s *Store) applyBatch(ctx context.Context, ts []domain.Transition, notices func(sqlstore.DB, map[string]bool) error) (applied map[string]bool, err error) {
	args := applyArgs(ts)
	run := func(db sqlstore.DB) error {
		rows, err := db.Query(ctx, applySQL, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		applied = make(map[string]bool, len(ts))
		if err := sqlstore.MarkIDs(rows, applied); err != nil {
			return err
		}
		rows.Close()
		return notices(db, applied)
	}
	if !sqlstore.HasNotice(ts) {
		return applied, retry(ctx, func() error { return run(pgxDB{s.pool}) })
	}
	return applied, s.inTx(ctx, run)
}

// applyArgs lays a batch out as applySQL's arrays, in the order given: the engine sends
// a batch sorted by alarm id (ApplySorted), so that concurrent batches touching the same
// rows lock them in the same order, which keeps them from deadlocking (retry covers any
// plan that does not follow it).
func applyArgs(ts []domain.Transition) []any {
	n, nev := len(ts), 0
	for i := range ts {
		nev += len(ts[i].Events)
	}
	var (
		ids, fenceWorkers, statuses, lastErrors = make(elems[pgtype.Text], n), make(elems[pgtype.Text], n), make(elems[pgtype.Text], n), make(elems[pgtype.Text], n)
		pausedReasons                           = make(elems[pgtype.Text], n)
		fenced, keepLease                       = make(elems[pgtype.Bool], n), make(elems[pgtype.Bool], n)
		fenceAts, nextFireAts, scheduledFors    = make(elems[pgtype.Timestamptz], n), make(elems[pgtype.Timestamptz], n), make(elems[pgtype.Timestamptz], n)
		lastFiredAts, updatedAts, pausedUntils  = make(elems[pgtype.Timestamptz], n), make(elems[pgtype.Timestamptz], n), make(elems[pgtype.Timestamptz], n)
		failureCounts, fireCounts, skipStreaks  = make(elems[pgtype.Int4], n), make(elems[pgtype.Int4], n), make(elems[pgtype.Int4], n)

		evAlarmIDs, evTypes, evWorkers, evMessages = make(elems[pgtype.Text], 0, nev), make(elems[pgtype.Text], 0, nev), make(elems[pgtype.Text], 0, nev), make(elems[pgtype.Text], 0, nev)
		evAts, evScheduledFors                     = make(elems[pgtype.Timestamptz], 0, nev), make(elems[pgtype.Timestamptz], 0, nev)
		evAttempts                                 = make(elems[pgtype.Int4], 0, nev)
		rc                                         = newReceiptArrays(nev)
	)
	for i := range ts {
		t := &ts[i]
		ids[i] = text(t.AlarmID)
		// A zero fence means unfenced. Any other fence must match the row exactly; an
		// empty worker becomes NULL, which matches nothing (a lease always has both).
		fenced[i] = boolean(!t.Fence.IsZero())
		fenceWorkers[i], fenceAts[i] = nullText(t.Fence.Worker), timestamptz(t.Fence.ClaimedAt)
		statuses[i] = text(string(t.Status))
		nextFireAts[i], scheduledFors[i] = timestamptz(t.NextFireAt), timestamptz(t.ScheduledFor)
		failureCounts[i] = int4(t.FailureCount)
		lastErrors[i] = text(t.LastError)
		lastFiredAts[i], updatedAts[i] = timestamptz(t.LastFiredAt), timestamptz(t.UpdatedAt)
		keepLease[i] = boolean(t.KeepLease)
		fireCounts[i], skipStreaks[i] = int4(t.FireCount), int4(t.SkipStreak)
		pausedReasons[i], pausedUntils[i] = text(t.PausedReason), timestamptz(t.PausedUntil)
		for _, e := range t.Events {
			// The transition owns its events: they belong to its alarm whatever
			// e.AlarmID says, so a stale transition can never leak one.
			evAlarmIDs = append(evAlarmIDs, text(t.AlarmID))
			evTypes = append(evTypes, text(string(e.Type)))
			evAts = append(evAts, timestamptz(e.At))
			evAttempts = append(evAttempts, int4(e.Attempt))
			evScheduledFors = append(evScheduledFors, timestamptz(e.ScheduledFor))
			evWorkers = append(evWorkers, text(e.Worker))
			evMessages = append(evMessages, text(e.Message))
			rc.add(e.Receipt)
		}
	}
	return []any{
		ids, fenced, fenceWorkers, fenceAts,
		statuses, nextFireAts, scheduledFors, failureCounts,
		lastErrors, lastFiredAts, keepLease, updatedAts,
		fireCounts, skipStreaks, pausedReasons, pausedUntils,
		evAlarmIDs, evTypes, evAts, evAttempts,
		evScheduledFors, evWorkers, evMessages,
		rc.durations, rc.statuses, rc.types, rc.bodies, rc.truncated,
	}
}

// retry runs fn again, up to maxAttempts times in all, when PostgreSQL rolled it
// back for a deadlock or serialization failure. fn must be safe to re-run: it is one
// statement or one transaction that had no effect.
func retry(ctx context.Context, fn func() error) error {
	return sqlstore.Retry(ctx, maxAttempts, retryable, nil, fn)
}

// receiptArrays are applySQL's arrays of the attempt log's columns, an element per
// event: NULLs for an event that is no attempt.
type receiptArrays struct {
	durations elems[pgtype.Int8]
	statuses  elems[pgtype.Int4]
	types     elems[pgtype.Text]
	bodies    [][]byte // a nil element is NULL
	truncated elems[pgtype.Bool]
}

func newReceiptArrays(n int) receiptArrays {
	return receiptArrays{make(elems[pgtype.Int8], 0, n), make(elems[pgtype.Int4], 0, n), make(elems[pgtype.Text], 0, n),
		make([][]byte, 0, n), make(elems[pgtype.Bool], 0, n)}
}

func (a *receiptArrays) add(r *domain.Receipt) {
	if r == nil {
		a.durations, a.statuses, a.types = append(a.durations, pgtype.Int8{}), append(a.statuses, pgtype.Int4{}), append(a.types, pgtype.Text{})
		a.bodies, a.truncated = append(a.bodies, nil), append(a.truncated, pgtype.Bool{})
		return
	}
	a.durations = append(a.durations, pgtype.Int8{Int64: r.Duration.Microseconds(), Valid: true})
	a.statuses = append(a.statuses, pgtype.Int4{Int32: int32(r.Status), Valid: r.Status != 0})
	a.types = append(a.types, nullText(r.ContentType))
	a.bodies = append(a.bodies, r.Body)
	a.truncated = append(a.truncated, boolean(r.Truncated))
}
