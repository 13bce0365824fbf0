package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/ports"
)

// DeleteExpiredAlarms deletes a batch of expired terminal alarms and their events in one
// transaction: ExpiredAlarms takes the batch, DeleteChosen deletes what it took.
func (e *Engine[T]) DeleteExpiredAlarms(ctx context.Context, p ports.ExpiredAlarms) (ports.Deleted, error) {
	if p.Limit < 1 {
		return ports.Deleted{}, fmt.Errorf("%s: delete expired alarms: limit must be at least 1", e.Name)
	}
	return e.deleteChosen(ctx, func(tx DB) ([]string, error) {
		return List(ctx, tx, scanID, e.SQL.ExpiredAlarms, e.TimeArg(p.Before), p.Limit)
	})
}

// deleteChosen deletes, in one transaction, the alarms choose takes, their events
// (DeleteChosen) and their tags.
func (e *Engine[T]) deleteChosen(ctx context.Context, choose func(tx DB) ([]string, error)) (ports.Deleted, error) {
	var d ports.Deleted
	err := e.Tx(ctx, func(tx DB) error {
		d = ports.Deleted{}
		ids, err := choose(tx)
		if err != nil || len(ids) == 0 {
			return err
		}
		if d, err = e.DeleteChosen(ctx, tx, ids); err != nil {
			return err
		}
		return e.deleteTags(ctx, tx, ids)
	})
	if err != nil {
		return ports.Deleted{}, e.mapError(err)
	}
	return d, nil
}

func scanID(r sqlrow.Scanner) (string, error) {
	var id string
	err := r.Scan(&id)
	return id, err
}

// TrimEvents is one step of the sweep that deletes old events and caps each alarm's
// (TrimStep). A step that covered fewer alarms than asked reached the end: no Next.
func (e *Engine[T]) TrimEvents(ctx context.Context, p ports.TrimEvents) (ports.Trimmed, error) {
	if p.Alarms < 1 || p.Keep < 0 {
		return ports.Trimmed{}, fmt.Errorf("%s: trim events: alarms must be at least 1 and keep not negative", e.Name)
	}
	events, last, covered, err := e.TrimStep(ctx, p)
	if err != nil {
		return ports.Trimmed{}, e.mapError(err)
	}
	t := ports.Trimmed{Events: events}
	if covered == p.Alarms {
		t.Next = last
	}
	return t, nil
}

// AcquireLease takes or renews the named lease for holder (TakeLease).
func (e *Engine[T]) AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	if name == "" || holder == "" || ttl <= 0 {
		return false, fmt.Errorf("%s: acquire lease: name, holder and a positive ttl are required", e.Name)
	}
	got, err := e.TakeLease(ctx, name, holder, ttl)
	if err != nil {
		return false, e.mapError(err)
	}
	return got, nil
}

// ReleaseLease gives the lease up if holder holds it: one statement, in autocommit.
func (e *Engine[T]) ReleaseLease(ctx context.Context, name, holder string) error {
	_, err := e.Write.Exec(ctx, e.SQL.ReleaseLease, name, holder)
	return e.mapError(err)
}
