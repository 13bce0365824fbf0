package sqlstore

import (
	"context"
	"slices"
	"strings"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Apply writes a batch of transitions, each fenced on its lease, with the events and
// notices of those that applied (ports.AlarmStore.Apply): the dialect's ApplyBatch
// runs its tuned statements and reports which applied, and the engine reports the rest
// stale, in the order given.
func (e *Engine[T]) Apply(ctx context.Context, ts []domain.Transition) (ports.ApplyResult, error) {
	if len(ts) == 0 {
		return ports.ApplyResult{}, nil
	}
	batch := ts
	if e.ApplySorted {
		batch = SortedByID(ts)
	}
	applied, err := e.ApplyBatch(ctx, batch, func(tx DB, applied map[string]bool) error {
		return e.insertNotices(ctx, tx, batch, applied)
	})
	if err != nil {
		return ports.ApplyResult{}, e.mapError(err)
	}
	var res ports.ApplyResult
	for _, t := range ts {
		if applied[t.AlarmID] {
			res.Applied++
		} else {
			res.Stale = append(res.Stale, t.AlarmID)
		}
	}
	return res, nil
}

// insertNotices inserts the notices of the transitions in ts that applied, as
// CreateBatch inserts an alarm (its created event is not stored): one INSERT each, and
// none for a batch without notices, the dispatcher's hot path. Notices carry no
// idempotency key, so a conflict can only be a taken id, which cannot happen (a
// notice's id derives from its alarm's and the time); it fails the batch with
// ErrConflict.
func (e *Engine[T]) insertNotices(ctx context.Context, tx DB, ts []domain.Transition, applied map[string]bool) error {
	for _, t := range ts {
		if t.Notice != nil && applied[t.AlarmID] {
			if _, err := tx.Exec(ctx, e.SQL.InsertAlarm, e.AlarmArgs(e.StoredAlarm(*t.Notice))...); err != nil {
				return err
			}
		}
	}
	return nil
}

// HasNotice reports whether some transition of ts carries a notice to insert.
func HasNotice(ts []domain.Transition) bool {
	return slices.ContainsFunc(ts, func(t domain.Transition) bool { return t.Notice != nil })
}

// SortedByID is ts ordered by alarm id (a copy, unless already so), so that every
// statement of an Apply meets the rows of a batch in primary-key order, as concurrent
// appliers do, and they cannot deadlock on each other.
func SortedByID(ts []domain.Transition) []domain.Transition {
	byID := func(a, b domain.Transition) int { return strings.Compare(a.AlarmID, b.AlarmID) }
	if slices.IsSortedFunc(ts, byID) {
		return ts
	}
	ts = slices.Clone(ts)
	slices.SortFunc(ts, byID)
	return ts
}

// Events is the events of the transitions in ts that applied, in order.
func Events(ts []domain.Transition, applied map[string]bool) []domain.Event {
	n := 0
	for _, t := range ts {
		n += len(t.Events)
	}
	evs := make([]domain.Event, 0, n)
	for _, t := range ts {
		if applied[t.AlarmID] {
			evs = append(evs, t.Events...)
		}
	}
	return evs
}

// MarkIDs sets ids[id] for the id each row of rows holds (RETURNING id, SELECT id).
// Closing rows stays the caller's.
func MarkIDs(rows sqlrow.Rows, ids map[string]bool) error {
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids[id] = true
	}
	return rows.Err()
}
