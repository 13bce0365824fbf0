package sqlite

import (
	"database/sql"
	"encoding/json"

	"github.com/chronoshq/chronos/domain"
)

// alarmColumns lists every column of alarms in the order scanAlarm reads them.
const alarmColumns = `id, owner, label, kind, fire_at, cron_expr, timezone, next_fire_at,
	scheduled_for, conversation_id, wake_message, payload, status, delivery, idempotency_key,
	max_failures, failure_count, last_error, claimed_by, claimed_at, created_at, updated_at,
	last_fired_at`

// scanner is a *sql.Row or *sql.Rows.
type scanner interface {
	Scan(dest ...any) error
}

// scanAlarm reads one alarms row (alarmColumns) and checks it with domain.Rehydrate.
func scanAlarm(row scanner) (domain.Alarm, error) {
	var (
		a                                           domain.Alarm
		kind, status, delivery                      string
		payload                                     []byte
		claimedBy                                   sql.NullString
		fireAt, nextFireAt, scheduledFor, claimedAt sql.NullInt64
		createdAt, updatedAt, lastFiredAt           sql.NullInt64
	)
	err := row.Scan(&a.ID, &a.Owner, &a.Label, &kind, &fireAt, &a.CronExpr, &a.Timezone, &nextFireAt,
		&scheduledFor, &a.ConversationID, &a.WakeMessage, &payload, &status, &delivery, &a.IdempotencyKey,
		&a.MaxFailures, &a.FailureCount, &a.LastError, &claimedBy, &claimedAt, &createdAt, &updatedAt,
		&lastFiredAt)
	if err != nil {
		return domain.Alarm{}, err
	}
	a.Kind, a.Status, a.Delivery = domain.Kind(kind), domain.Status(status), domain.Delivery(delivery)
	a.Payload = json.RawMessage(payload)
	a.ClaimedBy = claimedBy.String
	a.FireAt, a.NextFireAt, a.ScheduledFor = fromDB(fireAt), fromDB(nextFireAt), fromDB(scheduledFor)
	a.ClaimedAt, a.CreatedAt, a.UpdatedAt, a.LastFiredAt = fromDB(claimedAt), fromDB(createdAt), fromDB(updatedAt), fromDB(lastFiredAt)
	return domain.Rehydrate(a) // callers map its error with the driver's

}

// scanAlarms reads every row and closes rows.
func scanAlarms(rows *sql.Rows) ([]domain.Alarm, error) {
	defer rows.Close()
	alarms := []domain.Alarm{}
	for rows.Next() {
		a, err := scanAlarm(rows)
		if err != nil {
			return nil, err
		}
		alarms = append(alarms, a)
	}
	return alarms, rows.Err()
}

// scanEvents reads alarm_events rows (id, alarm_id, type, at, attempt, scheduled_for,
// worker, message) and closes rows.
func scanEvents(rows *sql.Rows) ([]domain.Event, error) {
	defer rows.Close()
	events := []domain.Event{}
	for rows.Next() {
		var (
			e            domain.Event
			typ          string
			at, schedFor sql.NullInt64
		)
		if err := rows.Scan(&e.ID, &e.AlarmID, &typ, &at, &e.Attempt, &schedFor, &e.Worker, &e.Message); err != nil {
			return nil, err
		}
		e.Type, e.At, e.ScheduledFor = domain.EventType(typ), fromDB(at), fromDB(schedFor)
		events = append(events, e)
	}
	return events, rows.Err()
}
