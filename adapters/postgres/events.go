package postgres

import (
	"context"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/page"
	"github.com/chronoshq/chronos/domain"
)

// eventsSQL reads the alarm's owner, creation and its stored history in one statement
// and one snapshot (the created event is not stored; domain.WithCreated adds it):
// no row means the alarm is unknown; one row of NULLs means an alarm without (retained)
// history. The alarm is found by id alone, and the owner is checked on the row (see
// getSQL).
const eventsSQL = `
SELECT a.owner, a.created_at, a.fire_at, e.id, e.type, e.at, e.attempt, e.scheduled_for, e.worker, e.message
FROM alarms a
LEFT JOIN LATERAL (
	SELECT * FROM alarm_events WHERE alarm_id = a.id ORDER BY id LIMIT $2
) e ON true
WHERE a.id = $1
ORDER BY e.id`

// Events returns the owner's alarm's history, oldest first.
func (s *Store) Events(ctx context.Context, owner, id string, limit int) ([]domain.Event, error) {
	return s.events(ctx, ownedBy(owner), id, limit)
}

// events returns the history of the alarm with this id when sc sees it.
func (s *Store) events(ctx context.Context, sc ownerScope, id string, limit int) ([]domain.Event, error) {
	limit = page.Events(limit)
	rows, err := s.pool.Query(ctx, eventsSQL, id, limit)
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	found := false
	events := []domain.Event{}
	var createdAt, fireAt *time.Time
	for rows.Next() {
		found = true
		var (
			alarmOwner           string
			eid                  *int64
			typ, worker, message *string
			at, scheduledFor     *time.Time
			attempt              *int
		)
		if err := rows.Scan(&alarmOwner, &createdAt, &fireAt, &eid, &typ, &at, &attempt, &scheduledFor, &worker, &message); err != nil {
			return nil, mapError(err)
		}
		if !sc.sees(alarmOwner) {
			return nil, notFound("alarm", id) // another owner's: as if unknown
		}
		if eid == nil {
			continue
		}
		events = append(events, domain.Event{
			ID:           *eid,
			AlarmID:      id,
			Type:         domain.EventType(*typ),
			At:           deref(at),
			Attempt:      *attempt,
			ScheduledFor: deref(scheduledFor),
			Worker:       *worker,
			Message:      *message,
		})
	}
	if err := rows.Err(); err != nil {
		return nil, mapError(err)
	}
	if !found {
		return nil, notFound("alarm", id)
	}
	return domain.WithCreated(events, domain.CreatedEvent(id, deref(createdAt), deref(fireAt)), limit), nil
}
