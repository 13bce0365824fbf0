package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
)

// applyBatch is the engine's ApplyBatch (which sorts the batch by id, so every
// statement meets its rows in primary-key order, as concurrent appliers do), in one
// READ COMMITTED transaction.
//
// First optimistically, in two statements whatever the batch size: one UPDATE alarms
// JOIN (SELECT ?, ?, ... UNION ALL ...) that carries every transition's fence in its
// WHERE, then one multi-row INSERT of the events. The UPDATE reports the rows it
// matched (clientFoundRows), and the ids of a batch are distinct, so when it matched
// as many rows as there are transitions, every fence held and nothing is stale: that is
// a burn-down's every batch, and it spares the locking read the exact path needs.
// The notices of the applied transitions follow, in the same transaction.
//
// When it matched fewer, some transition is stale, and a count cannot say which: the
// transaction is rolled back and the batch applied by the exact path (applyLocked),
// which locks every row, compares the fences in Go, and writes only the fresh ones.
//
// Why not a single fenced statement for the stale case too: MySQL reports one
// affected-row count per statement, not which rows matched, and has no RETURNING.
// INSERT ... ON DUPLICATE KEY UPDATE cannot express the fence at all (it updates
// whatever row has the key). See docs/mysql.md.
func (s *Store) applyBatch(ctx context.Context, ts []domain.Transition, notices func(sqlstore.DB, map[string]bool) error) (map[string]bool, error) {
	all := make(map[string]bool, len(ts))
	for _, t := range ts {
		all[t.AlarmID] = true
	}
	err := s.engineTx(ctx, func(db sqlstore.DB) error {
		tx := s.batch(db.(sqlstore.SQLTx).Tx)
		matched, err := updateAlarms(ctx, tx, ts)
		if err != nil {
			return err
		}
		if matched != len(ts) {
			return errSomeStale // rolled back by inTx; nothing of the batch was written
		}
		if err := insertEvents(ctx, tx, sqlstore.Events(ts, all)); err != nil {
			return err
		}
		return notices(db, all)
	})
	if errors.Is(err, errSomeStale) {
		return s.applyLocked(ctx, ts, notices)
	}
	return all, err
}

// errSomeStale ends Apply's optimistic transaction when a fence did not hold.
var errSomeStale = errors.New("mysql: apply: a transition is stale")

// applyLocked applies ts exactly, in one READ COMMITTED transaction of three statements
// whatever the batch size (and the notices):
//
//  1. SELECT id, claimed_by, claimed_at ... WHERE id IN (...) ORDER BY id FOR UPDATE
//     locks every row of the batch (in primary-key order, so two appliers cannot
//     deadlock on each other) and reads its current lease. Fences are compared in Go,
//     exactly: a transition is stale when its row is gone or, for a non-zero fence, the
//     row's claimed_by/claimed_at differ from it. The rows are locked, so the answer
//     cannot change before commit.
//  2. The UPDATE-JOIN writes the new values of the transitions that hold, and only those.
//  3. One multi-row INSERT appends their events.
func (s *Store) applyLocked(ctx context.Context, ts []domain.Transition, notices func(sqlstore.DB, map[string]bool) error) (applied map[string]bool, err error) {
	err = s.engineTx(ctx, func(db sqlstore.DB) error {
		tx := s.batch(db.(sqlstore.SQLTx).Tx)
		leases, err := lockLeases(ctx, tx, ts)
		if err != nil {
			return err
		}
		applied = make(map[string]bool, len(ts))
		fresh := make([]domain.Transition, 0, len(ts))
		for _, t := range ts {
			if l, ok := leases[t.AlarmID]; ok && (t.Fence.IsZero() || l.holds(t.Fence)) {
				applied[t.AlarmID] = true
				fresh = append(fresh, t)
			}
		}
		if err := writeTransitions(ctx, tx, fresh, sqlstore.Events(fresh, applied)); err != nil {
			return err
		}
		return notices(db, applied)
	})
	return applied, err
}

// writeTransitions writes ts, whose rows this transaction has locked and whose fences
// hold, and their events.
func writeTransitions(ctx context.Context, tx batchTx, ts []domain.Transition, events []domain.Event) error {
	matched, err := updateAlarms(ctx, tx, ts)
	if err != nil {
		return err
	}
	// Every row is locked by this transaction and its fence holds, so every one matches.
	if matched != len(ts) {
		return fmt.Errorf("apply: updated %d of %d locked rows", matched, len(ts))
	}
	return insertEvents(ctx, tx, events)
}

// lease is a row's current claimed_by/claimed_at ("" and zero when unclaimed).
type lease struct {
	worker string
	at     time.Time
}

// holds reports whether f is exactly this lease, compared as the column keeps times.
func (l lease) holds(f domain.Fence) bool {
	return l.worker == f.Worker && l.at.Equal(micro(f.ClaimedAt))
}

// lockLeases locks the rows of ts and returns their leases by id; missing ids are gone.
func lockLeases(ctx context.Context, tx batchTx, ts []domain.Transition) (map[string]lease, error) {
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.AlarmID
	}
	args, marks := paddedIn(ids)
	rows, err := tx.query(ctx, `SELECT id, claimed_by, claimed_at FROM alarms
		WHERE id IN (`+marks+`) ORDER BY id FOR UPDATE`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	leases := make(map[string]lease, len(ts))
	for rows.Next() {
		var (
			id string
			by sql.NullString
			at sql.NullTime
		)
		if err := rows.Scan(&id, &by, &at); err != nil {
			return nil, err
		}
		leases[id] = lease{worker: by.String, at: at.Time}
	}
	return leases, rows.Err()
}

// transitionsPerUpdate bounds one UPDATE-JOIN: 15 placeholders a row. A power of two,
// so a full chunk needs no padding (bucket).
const transitionsPerUpdate = 512

// updateAlarms writes the mutable columns of ts (ids distinct) where each transition's
// fence holds, in one statement per transitionsPerUpdate, and returns how many rows
// matched: with clientFoundRows that counts rows whose fence held, changed or not.
//
// The derived table's first row casts each time to DATETIME(6) so the column types do
// not depend on how the driver sends its arguments (interpolated literals or binary
// protocol parameters). An unfenced transition (an owner's action: zero Fence, sent as
// a NULL worker and time) matches its row whatever the lease; a fenced one only while
// the row carries exactly its lease (a NULL lease, or half of one, matches nothing). keep_lease leaves claimed_by/claimed_at as they are
// (the at-most-once advance), else both are cleared.
func updateAlarms(ctx context.Context, tx batchTx, ts []domain.Transition) (int, error) {
	matched := 0
	for chunk := range slices.Chunk(ts, transitionsPerUpdate) {
		n, err := updateChunk(ctx, tx, chunk)
		if err != nil {
			return 0, err
		}
		matched += n
	}
	return matched, nil
}

// updateChunk is one UPDATE-JOIN of ts, its derived table padded to paddedSize(len(ts))
// rows with rows of NULLs, which join no alarm (a.id = NULL is never true).
func updateChunk(ctx context.Context, tx batchTx, ts []domain.Transition) (int, error) {
	var q strings.Builder
	q.WriteString(`UPDATE alarms a JOIN (`)
	size := paddedSize(len(ts))
	args := make([]any, 0, 15*size)
	for i := range size {
		if i == 0 {
			q.WriteString(`SELECT ? AS id, ? AS fence_worker, CAST(? AS DATETIME(6)) AS fence_at,
				? AS status, CAST(? AS DATETIME(6)) AS next_fire_at,
				CAST(? AS DATETIME(6)) AS scheduled_for, CAST(? AS SIGNED) AS failure_count,
				? AS last_error, CAST(? AS DATETIME(6)) AS last_fired_at,
				CAST(? AS SIGNED) AS fire_count, CAST(? AS SIGNED) AS skip_streak,
				? AS paused_reason, CAST(? AS DATETIME(6)) AS paused_until,
				CAST(? AS SIGNED) AS keep_lease, CAST(? AS DATETIME(6)) AS updated_at`)
		} else {
			q.WriteString(` UNION ALL SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?`)
		}
		if i >= len(ts) {
			args = padNulls(args, 15)
			continue
		}
		t := ts[i]
		keep := 0
		if t.KeepLease {
			keep = 1
		}
		args = append(args, t.AlarmID, sqlstore.NullText(t.Fence.Worker), timeArg(t.Fence.ClaimedAt),
			string(t.Status), timeArg(t.NextFireAt), timeArg(t.ScheduledFor), t.FailureCount,
			t.LastError, timeArg(t.LastFiredAt), t.FireCount, t.SkipStreak,
			t.PausedReason, timeArg(t.PausedUntil), keep, timeArg(t.UpdatedAt))
	}
	q.WriteString(`) t ON a.id = t.id SET
		a.status = t.status, a.next_fire_at = t.next_fire_at, a.scheduled_for = t.scheduled_for,
		a.failure_count = t.failure_count, a.last_error = t.last_error, a.last_fired_at = t.last_fired_at,
		a.fire_count = t.fire_count, a.skip_streak = t.skip_streak,
		a.paused_reason = t.paused_reason, a.paused_until = t.paused_until,
		a.updated_at = t.updated_at,
		a.claimed_by = IF(t.keep_lease = 1, a.claimed_by, NULL),
		a.claimed_at = IF(t.keep_lease = 1, a.claimed_at, NULL)
	WHERE (t.fence_worker IS NULL AND t.fence_at IS NULL)
	   OR (a.claimed_by = t.fence_worker AND a.claimed_at = t.fence_at)`)
	n, err := sqlrow.Affected(tx.exec(ctx, q.String(), args...))
	return int(n), err
}
