package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/chronoshq/chronos/adapters/internal/page"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Get returns the alarm if scope sees it. The alarm is found by id alone and its owner
// checked on the row, so an owner's read and the operator's are one statement and plan.
func (e *Engine[T]) Get(ctx context.Context, scope ports.Scope, id string) (domain.Alarm, error) {
	a, err := e.scanTaggedRow(e.Read.QueryRow(ctx, e.tagged(e.SQL.GetAlarm, ""), id))
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !scope.Sees(a.Owner)) {
		return domain.Alarm{}, e.notFound("alarm", id)
	}
	return a, e.mapError(err)
}

// events reads the alarm and its first events in one statement (one snapshot): a row per
// event, or one row of NULL events for an alarm without any. The created event is not
// stored; it is made from the alarm's row (domain.CreatedEvent).
// Events is the alarm's history if scope sees the alarm.
func (e *Engine[T]) Events(ctx context.Context, scope ports.Scope, id string, limit int) ([]domain.Event, error) {
	limit = page.Events(limit)
	rows, err := e.Read.Query(ctx, e.SQL.AlarmEvents, id, limit)
	if err != nil {
		return nil, e.mapError(err)
	}
	defer rows.Close()
	found := false
	events := []domain.Event{}
	var createdAt, fireAt T
	for rows.Next() {
		found = true
		var (
			owner                string
			eventID              *int64
			typ, worker, message *string
			at, scheduledFor     T
			attempt              *int
		)
		if err := rows.Scan(&owner, &createdAt, &fireAt, &eventID, &typ, &at, &attempt, &scheduledFor, &worker, &message); err != nil {
			return nil, e.mapError(err)
		}
		if !scope.Sees(owner) {
			return nil, e.notFound("alarm", id)
		}
		if eventID == nil {
			continue
		}
		events = append(events, domain.Event{ID: *eventID, AlarmID: id, Type: domain.EventType(*typ), At: e.ToTime(at),
			Attempt: *attempt, ScheduledFor: e.ToTime(scheduledFor), Worker: *worker, Message: *message})
	}
	if err := rows.Err(); err != nil {
		return nil, e.mapError(err)
	}
	if !found {
		return nil, e.notFound("alarm", id)
	}
	return domain.WithCreated(events, domain.CreatedEvent(id, e.ToTime(createdAt), e.ToTime(fireAt)), limit), nil
}
