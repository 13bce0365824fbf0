package sqlite

import (
	"context"
	"database/sql"
	"slices"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Apply writes a batch of transitions in one transaction: one UPDATE ... FROM per
// chunk of transitions (fenced in its WHERE, RETURNING the ids it changed), then the
// events of those that applied in as few INSERTs as possible, then one commit. A
// transition whose fence no longer matches changes nothing and is reported stale. The
// notice of a transition that applied is inserted in the same transaction (one more
// statement per notice; a batch without notices runs none).
//
// One statement per chunk (prepared once per size bucket; see statements), not one per
// transition: the writer is SQLite's single bottleneck, and per-statement overhead was
// most of an Apply's time (docs/benchmarks.md).
func (s *Store) Apply(ctx context.Context, ts []domain.Transition) (ports.ApplyResult, error) {
	if len(ts) == 0 {
		return ports.ApplyResult{}, nil
	}
	stored := make([]domain.Transition, len(ts))
	for i, t := range ts {
		stored[i] = storedTransition(t)
	}
	var res ports.ApplyResult
	err := s.write(ctx, func(tx *sql.Tx) error {
		res = ports.ApplyResult{}
		applied := make(map[string]bool, len(stored))
		for chunk := range slices.Chunk(stored, maxBatchRows) {
			if err := s.applyChunk(ctx, tx, chunk, applied); err != nil {
				return err
			}
		}
		var events []domain.Event
		for _, t := range stored {
			if !applied[t.AlarmID] {
				res.Stale = append(res.Stale, t.AlarmID)
				continue
			}
			res.Applied++
			events = append(events, t.Events...)
			if t.Notice != nil {
				// Inserted as CreateBatch inserts it. A taken id (it cannot be: a notice's id derives from its
				// alarm's and the time) fails the batch with ErrConflict.
				n := storedAlarm(*t.Notice)
				if r := s.createIn(ctx, tx, n); r.Err != nil {
					return r.Err
				}
			}
		}
		return s.insertEvents(ctx, tx, events)
	})
	if err != nil {
		return ports.ApplyResult{}, err
	}
	return res, nil
}

// applyBatchSQL updates up to rows transitions in one statement, RETURNING the ids it
// changed. A zero fence is unfenced; any other must match the row's lease exactly (IS,
// so a fence naming "no lease" compares correctly with NULL). Padding rows carry a NULL
// id, which matches no alarm.
func applyBatchSQL(rows int) string {
	return `WITH t(id, status, next_fire_at, scheduled_for, failure_count, last_error,
		last_fired_at, fire_count, skip_streak, paused_reason, paused_until, updated_at,
		keep_lease, fenced, fence_worker, fence_at) AS (VALUES ` + valuesRows(rows, applyParams) + `)
	UPDATE alarms SET
		status = t.status, next_fire_at = t.next_fire_at, scheduled_for = t.scheduled_for,
		failure_count = t.failure_count, last_error = t.last_error, last_fired_at = t.last_fired_at,
		fire_count = t.fire_count, skip_streak = t.skip_streak, paused_reason = t.paused_reason,
		paused_until = t.paused_until, updated_at = t.updated_at,
		claimed_by = CASE WHEN t.keep_lease THEN alarms.claimed_by END,
		claimed_at = CASE WHEN t.keep_lease THEN alarms.claimed_at END
	FROM t
	WHERE alarms.id = t.id
	  AND (NOT t.fenced OR (alarms.claimed_by IS t.fence_worker AND alarms.claimed_at IS t.fence_at))
	RETURNING alarms.id`
}

// applyParams is how many values one transition binds in applyBatchSQL.
const applyParams = 16

// applyChunk writes ts (ids distinct, at most maxBatchRows) in one statement and marks
// the ids it changed.
func (s *Store) applyChunk(ctx context.Context, tx *sql.Tx, ts []domain.Transition, applied map[string]bool) error {
	b := bucketIndex(len(ts))
	args := make([]any, applyParams<<b) // the padding stays nil: NULL
	for i, t := range ts {
		copy(args[applyParams*i:], []any{t.AlarmID, string(t.Status), toDB(t.NextFireAt), toDB(t.ScheduledFor), t.FailureCount,
			t.LastError, toDB(t.LastFiredAt), t.FireCount, t.SkipStreak, t.PausedReason, toDB(t.PausedUntil),
			toDB(t.UpdatedAt), t.KeepLease, !t.Fence.IsZero(), sqlstore.NullText(t.Fence.Worker), toDB(t.Fence.ClaimedAt)})
	}
	rows, err := tx.StmtContext(ctx, s.stmts.applyBatch[b]).QueryContext(ctx, args...)
	if err != nil {
		return mapError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return mapError(err)
		}
		applied[id] = true
	}
	return mapError(rows.Err())
}

// applyTransition runs the UPDATE of one transition (Mutate's, unfenced) (stmt is fenced or not, and the
// arguments suit both) and reports whether it matched the row.
func applyTransition(ctx context.Context, stmt *sql.Stmt, t domain.Transition) (bool, error) {
	n, err := sqlrow.Affected(stmt.ExecContext(ctx,
		string(t.Status), toDB(t.NextFireAt), toDB(t.ScheduledFor), t.FailureCount, t.LastError,
		toDB(t.LastFiredAt), t.FireCount, t.SkipStreak, t.PausedReason, toDB(t.PausedUntil),
		toDB(t.UpdatedAt), t.KeepLease, t.AlarmID,
		sqlstore.NullText(t.Fence.Worker), toDB(t.Fence.ClaimedAt)))
	if err != nil {
		return false, mapError(err)
	}
	return n == 1, nil
}

// storedTransition is t with every time truncated as the store keeps it, so t.Apply
// of the alarm read gives exactly the row written.
func storedTransition(t domain.Transition) domain.Transition {
	t.Fence.ClaimedAt = trunc(t.Fence.ClaimedAt)
	t.NextFireAt = trunc(t.NextFireAt)
	t.ScheduledFor = trunc(t.ScheduledFor)
	t.LastFiredAt = trunc(t.LastFiredAt)
	t.PausedUntil = trunc(t.PausedUntil)
	t.UpdatedAt = trunc(t.UpdatedAt)
	events := make([]domain.Event, len(t.Events))
	for i, e := range t.Events {
		e.At, e.ScheduledFor = trunc(e.At), trunc(e.ScheduledFor)
		events[i] = e
	}
	t.Events = events
	return t
}
