package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/chronoshq/chronos/adapters/internal/page"
	"github.com/chronoshq/chronos/domain"
)

// scope is whose alarms a by-id read or change may reach: one owner's (the owner API,
// where another owner's alarm is as if unknown) or every owner's (the admin API). The
// alarm is found by id alone and its owner checked on the row, so an owner call and its
// admin twin are one implementation with the same statement and plan.
type scope struct {
	owner    string
	anyOwner bool
}

var everyOwner = scope{anyOwner: true}

func (sc scope) sees(owner string) bool { return sc.anyOwner || owner == sc.owner }

// Get returns the owner's alarm.
func (e *Engine[T]) Get(ctx context.Context, owner, id string) (domain.Alarm, error) {
	return e.get(ctx, scope{owner: owner}, id)
}

// AdminGet returns the alarm with this id, whoever owns it.
func (e *Engine[T]) AdminGet(ctx context.Context, id string) (domain.Alarm, error) {
	return e.get(ctx, everyOwner, id)
}

func (e *Engine[T]) get(ctx context.Context, sc scope, id string) (domain.Alarm, error) {
	a, err := e.ScanAlarm(e.Read.QueryRow(ctx, e.SQL.GetAlarm, id))
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !sc.sees(a.Owner)) {
		return domain.Alarm{}, e.notFound("alarm", id)
	}
	return a, e.mapError(err)
}

// Events returns the owner's alarm's history, oldest first.
func (e *Engine[T]) Events(ctx context.Context, owner, id string, limit int) ([]domain.Event, error) {
	return e.events(ctx, scope{owner: owner}, id, limit)
}

// AdminEvents returns the history of the alarm with this id, whoever owns it.
func (e *Engine[T]) AdminEvents(ctx context.Context, id string, limit int) ([]domain.Event, error) {
	return e.events(ctx, everyOwner, id, limit)
}

// events reads the alarm and its first events in one statement (one snapshot): a row per
// event, or one row of NULL events for an alarm without any. The created event is not
// stored; it is made from the alarm's row (domain.CreatedEvent).
func (e *Engine[T]) events(ctx context.Context, sc scope, id string, limit int) ([]domain.Event, error) {
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
		if !sc.sees(owner) {
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
