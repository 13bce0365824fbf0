package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/chronoshq/chronos/adapters/internal/page"
	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Attempts is a page of the alarm's attempt log if q.Scope sees the alarm: its owner
// first (by primary key), then its events that are attempts, newest first from the
// cursor, one more than the page to know whether another follows.
func (e *Engine[T]) Attempts(ctx context.Context, q ports.AttemptsQuery) ([]domain.Event, string, error) {
	before, err := q.Before()
	if err != nil {
		return nil, "", err
	}
	if q.Scope.None() {
		return nil, "", e.notFound("alarm", q.AlarmID)
	}
	var owner string
	err = e.Read.QueryRow(ctx, e.SQL.AlarmOwner, q.AlarmID).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !q.Scope.Sees(owner)) {
		return nil, "", e.notFound("alarm", q.AlarmID)
	}
	if err != nil {
		return nil, "", e.mapError(err)
	}
	size := page.Attempts(q.Limit)
	attempts, err := List(ctx, e.Read, e.scanEventRow, e.SQL.Attempts, q.AlarmID, before, size+1)
	if err != nil {
		return nil, "", e.mapError(err)
	}
	attempts, next := page.CutAttempts(attempts, size)
	return attempts, next, nil
}

// scanEventRow reads id and sqlrow.EventRowColumns: an event with its receipt, nil on
// an event that records no attempt.
func (e *Engine[T]) scanEventRow(r sqlrow.Scanner) (domain.Event, error) {
	var (
		ev               domain.Event
		typ              string
		at, scheduledFor T
		rs               sqlrow.ReceiptScan
	)
	dest := append([]any{&ev.ID, &ev.AlarmID, &typ, &at, &ev.Attempt, &scheduledFor, &ev.Worker, &ev.Message}, rs.Dest()...)
	if err := r.Scan(dest...); err != nil {
		return domain.Event{}, err
	}
	ev.Type, ev.At, ev.ScheduledFor = domain.EventType(typ), e.ToTime(at), e.ToTime(scheduledFor)
	ev.Receipt = rs.Receipt()
	return ev, nil
}
