package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Apply writes a batch of transitions, each fenced on its lease, in one READ COMMITTED
// transaction of three statements whatever the batch size:
//
//  1. SELECT id, claimed_by, claimed_at ... WHERE id IN (...) ORDER BY id FOR UPDATE
//     locks every row of the batch (in primary-key order, so two appliers cannot
//     deadlock on each other) and reads its current lease. Fences are compared in Go,
//     exactly: a transition is stale when its row is gone or, for a non-zero fence, the
//     row's claimed_by/claimed_at differ from it. The rows are locked, so the answer
//     cannot change before commit.
//  2. One UPDATE alarms JOIN (SELECT ?, ?, ... UNION ALL ...) writes the new values of
//     the transitions that hold, and only those.
//  3. One multi-row INSERT appends their events.
//
// Why not a single fenced statement: MySQL reports one affected-row count per
// statement, not which rows matched, and has no RETURNING, so an UPDATE-JOIN carrying
// the fence alone cannot say which transitions were stale. INSERT ... ON DUPLICATE KEY
// UPDATE cannot express the fence at all (it updates whatever row has the key). See
// docs/mysql.md.
func (s *Store) Apply(ctx context.Context, ts []domain.Transition) (ports.ApplyResult, error) {
	if len(ts) == 0 {
		return ports.ApplyResult{}, nil
	}
	var res ports.ApplyResult
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		leases, err := lockLeases(ctx, tx, ts)
		if err != nil {
			return err
		}
		res = ports.ApplyResult{}
		fresh := make([]domain.Transition, 0, len(ts))
		for _, t := range ts {
			l, ok := leases[t.AlarmID]
			if !ok || !t.Fence.IsZero() && !l.holds(t.Fence) {
				res.Stale = append(res.Stale, t.AlarmID)
				continue
			}
			fresh = append(fresh, t)
		}
		if err := writeTransitions(ctx, tx, fresh); err != nil {
			return err
		}
		res.Applied = len(fresh)
		return nil
	})
	if err != nil {
		return ports.ApplyResult{}, mapError(ctx, err)
	}
	return res, nil
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
func lockLeases(ctx context.Context, tx *sql.Tx, ts []domain.Transition) (map[string]lease, error) {
	ids := make([]any, len(ts))
	for i, t := range ts {
		ids[i] = t.AlarmID
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, claimed_by, claimed_at FROM alarms
		WHERE id IN (`+placeholders(len(ids))+`) ORDER BY id FOR UPDATE`, ids...)
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

// transitionsPerUpdate bounds one UPDATE-JOIN: 9 placeholders a row.
const transitionsPerUpdate = 500

// writeTransitions writes ts, whose rows this transaction has locked, and their events.
func writeTransitions(ctx context.Context, tx *sql.Tx, ts []domain.Transition) error {
	for chunk := range slices.Chunk(ts, transitionsPerUpdate) {
		if err := updateAlarms(ctx, tx, chunk); err != nil {
			return err
		}
	}
	var evs []domain.Event
	for _, t := range ts {
		evs = append(evs, t.Events...)
	}
	return insertEvents(ctx, tx, evs)
}

// updateAlarms writes the mutable columns of ts (ids distinct) in one statement.
//
// The derived table's first row casts each time to DATETIME(6) so the column types do
// not depend on how the driver sends its arguments (interpolated literals or binary
// protocol parameters); the keep_lease flag leaves claimed_by/claimed_at as they are
// (the at-most-once advance), else both are cleared.
func updateAlarms(ctx context.Context, tx *sql.Tx, ts []domain.Transition) error {
	if len(ts) == 0 {
		return nil
	}
	var q strings.Builder
	q.WriteString(`UPDATE alarms a JOIN (`)
	args := make([]any, 0, 9*len(ts))
	for i, t := range ts {
		if i == 0 {
			q.WriteString(`SELECT ? AS id, ? AS status, CAST(? AS DATETIME(6)) AS next_fire_at,
				CAST(? AS DATETIME(6)) AS scheduled_for, CAST(? AS SIGNED) AS failure_count,
				? AS last_error, CAST(? AS DATETIME(6)) AS last_fired_at,
				CAST(? AS SIGNED) AS keep_lease, CAST(? AS DATETIME(6)) AS updated_at`)
		} else {
			q.WriteString(` UNION ALL SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?`)
		}
		keep := 0
		if t.KeepLease {
			keep = 1
		}
		args = append(args, t.AlarmID, string(t.Status), timeArg(t.NextFireAt), timeArg(t.ScheduledFor),
			t.FailureCount, t.LastError, timeArg(t.LastFiredAt), keep, timeArg(t.UpdatedAt))
	}
	q.WriteString(`) t ON a.id = t.id SET
		a.status = t.status, a.next_fire_at = t.next_fire_at, a.scheduled_for = t.scheduled_for,
		a.failure_count = t.failure_count, a.last_error = t.last_error, a.last_fired_at = t.last_fired_at,
		a.updated_at = t.updated_at,
		a.claimed_by = IF(t.keep_lease = 1, a.claimed_by, NULL),
		a.claimed_at = IF(t.keep_lease = 1, a.claimed_at, NULL)`)
	res, err := tx.ExecContext(ctx, q.String(), args...)
	if err != nil {
		return err
	}
	// Every row is locked by this transaction and known to exist, so every one matches
	// (clientFoundRows makes this count matched rows, not changed ones).
	if n, err := res.RowsAffected(); err != nil || n != int64(len(ts)) {
		return fmt.Errorf("apply: updated %d of %d locked rows (%v)", n, len(ts), err)
	}
	return nil
}
