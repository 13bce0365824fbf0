package sqlite

import (
	"context"
	"database/sql"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Apply writes a batch of transitions in one transaction: one fenced UPDATE each
// (through a statement prepared once), then the events of those that applied in as few
// INSERTs as possible, then one commit. A transition whose fence no longer matches
// changes nothing and is reported stale.
func (s *Store) Apply(ctx context.Context, ts []domain.Transition) (ports.ApplyResult, error) {
	if len(ts) == 0 {
		return ports.ApplyResult{}, nil
	}
	var res ports.ApplyResult
	err := s.write(ctx, func(tx *sql.Tx) error {
		res = ports.ApplyResult{}
		fenced := tx.StmtContext(ctx, s.stmts.applyFenced)
		unfenced := tx.StmtContext(ctx, s.stmts.applyUnfenced)
		var events []domain.Event
		for _, t := range ts {
			t = storedTransition(t)
			stmt := fenced
			if t.Fence.IsZero() {
				stmt = unfenced
			}
			ok, err := applyTransition(ctx, stmt, t)
			if err != nil {
				return err
			}
			if !ok {
				res.Stale = append(res.Stale, t.AlarmID)
				continue
			}
			res.Applied++
			events = append(events, t.Events...)
		}
		return insertEvents(ctx, tx, events)
	})
	if err != nil {
		return ports.ApplyResult{}, err
	}
	return res, nil
}

// applyTransition runs the UPDATE of one transition (stmt is fenced or not, and the
// arguments suit both) and reports whether it matched the row.
func applyTransition(ctx context.Context, stmt *sql.Stmt, t domain.Transition) (bool, error) {
	res, err := stmt.ExecContext(ctx,
		string(t.Status), toDB(t.NextFireAt), toDB(t.ScheduledFor), t.FailureCount, t.LastError,
		toDB(t.LastFiredAt), toDB(t.UpdatedAt), t.KeepLease, t.AlarmID,
		nullString(t.Fence.Worker), toDB(t.Fence.ClaimedAt))
	if err != nil {
		return false, mapError(err)
	}
	n, err := res.RowsAffected()
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
	t.UpdatedAt = trunc(t.UpdatedAt)
	events := make([]domain.Event, len(t.Events))
	for i, e := range t.Events {
		e.At, e.ScheduledFor = trunc(e.At), trunc(e.ScheduledFor)
		events[i] = e
	}
	t.Events = events
	return t
}
