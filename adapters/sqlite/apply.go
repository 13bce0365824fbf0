package sqlite

import (
	"context"
	"database/sql"
	"slices"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
)

// applyBatch is the engine's ApplyBatch, in one write transaction: one UPDATE ... FROM
// per chunk of transitions (fenced in its WHERE, RETURNING the ids it changed), the
// notices of those that applied, then their events in as few INSERTs as possible.
//
// One statement per chunk (prepared once per size bucket; see statements), not one per
// transition: the writer is SQLite's single bottleneck, and per-statement overhead was
// most of an Apply's time (docs/benchmarks.md).
func (s *Store) applyBatch(ctx context.Context, ts []domain.Transition, notices func(sqlstore.DB, map[string]bool) error) (applied map[string]bool, err error) {
	err = s.inTx(ctx, func(db sqlstore.DB) error {
		tx := db.(sqlstore.SQLTx).Tx
		applied = make(map[string]bool, len(ts))
		for chunk := range slices.Chunk(ts, maxBatchRows) {
			if err := s.applyChunk(ctx, tx, chunk, applied); err != nil {
				return err
			}
		}
		if err := notices(db, applied); err != nil {
			return err
		}
		return s.insertEvents(ctx, tx, sqlstore.Events(ts, applied))
	})
	return applied, err
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
		return err
	}
	defer rows.Close()
	return sqlstore.MarkIDs(rows, applied)
}

// applyTransition runs the UPDATE of one transition (Mutate's, unfenced) (stmt is fenced or not, and the
// arguments suit both) and reports whether it matched the row.
func applyTransition(ctx context.Context, stmt *sql.Stmt, t domain.Transition) (bool, error) {
	n, err := sqlrow.Affected(stmt.ExecContext(ctx,
		string(t.Status), toDB(t.NextFireAt), toDB(t.ScheduledFor), t.FailureCount, t.LastError,
		toDB(t.LastFiredAt), t.FireCount, t.SkipStreak, t.PausedReason, toDB(t.PausedUntil),
		toDB(t.UpdatedAt), t.KeepLease, t.AlarmID,
		sqlstore.NullText(t.Fence.Worker), toDB(t.Fence.ClaimedAt)))
	return n == 1, err
}
