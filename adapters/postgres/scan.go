package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/domain"
)

// alarmColumns is the column list every alarm read selects, in scanAlarm's order.
const alarmColumns = `id, owner, label, kind, fire_at, cron_expr, timezone, next_fire_at,
	scheduled_for, conversation_id, wake_message, payload, status, delivery,
	idempotency_key, max_failures, failure_count, last_error, claimed_by, claimed_at,
	created_at, updated_at, last_fired_at`

// scanAlarm reads one row of alarmColumns and checks it with domain.Rehydrate.
func scanAlarm(row pgx.Row) (domain.Alarm, error) {
	var (
		a                                                  domain.Alarm
		kind, status, delivery                             string
		payload                                            []byte
		claimedBy                                          *string
		fireAt, nextFireAt, scheduledFor, claimedAt, fired *time.Time
	)
	err := row.Scan(&a.ID, &a.Owner, &a.Label, &kind, &fireAt, &a.CronExpr, &a.Timezone, &nextFireAt,
		&scheduledFor, &a.ConversationID, &a.WakeMessage, &payload, &status, &delivery,
		&a.IdempotencyKey, &a.MaxFailures, &a.FailureCount, &a.LastError, &claimedBy, &claimedAt,
		&a.CreatedAt, &a.UpdatedAt, &fired)
	if err != nil {
		return domain.Alarm{}, err
	}
	a.Kind, a.Status, a.Delivery = domain.Kind(kind), domain.Status(status), domain.Delivery(delivery)
	a.Payload = payload
	if claimedBy != nil {
		a.ClaimedBy = *claimedBy
	}
	a.FireAt, a.NextFireAt, a.ScheduledFor = deref(fireAt), deref(nextFireAt), deref(scheduledFor)
	a.ClaimedAt, a.LastFiredAt = deref(claimedAt), deref(fired)
	return domain.Rehydrate(a)
}

// collectAlarms reads every row of alarmColumns.
func collectAlarms(rows pgx.Rows) ([]domain.Alarm, error) {
	alarms := []domain.Alarm{}
	defer rows.Close()
	for rows.Next() {
		a, err := scanAlarm(rows)
		if err != nil {
			return nil, err
		}
		alarms = append(alarms, a)
	}
	return alarms, rows.Err()
}

// timeArg is a time as a parameter: NULL when zero, else UTC at the store's precision.
// Truncating here, not in PostgreSQL, makes what a caller reads back equal what it
// computed from the same truncated inputs.
func timeArg(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}

// textArg is a string as a parameter: NULL when empty (claimed_by).
func textArg(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// truncateAlarm brings a's times to the store's precision, as reading the row back
// would return them.
func truncateAlarm(a domain.Alarm) domain.Alarm {
	for _, t := range []*time.Time{&a.FireAt, &a.NextFireAt, &a.ScheduledFor, &a.ClaimedAt, &a.CreatedAt, &a.UpdatedAt, &a.LastFiredAt} {
		*t = deref(timeArg(*t))
	}
	return a
}
