package mysql

import (
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// precision is what a DATETIME(6) column keeps.
const precision = time.Microsecond

// alarmColumns is the column list every alarm read selects, in scanAlarm's order.
const alarmColumns = `id, owner, label, kind, fire_at, cron_expr, timezone, next_fire_at, scheduled_for,
	conversation_id, wake_message, payload, status, delivery, idempotency_key, max_failures,
	failure_count, last_error, claimed_by, claimed_at, created_at, updated_at, last_fired_at`

// scanner is *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// scanAlarm reads one row of alarmColumns and checks it with domain.Rehydrate.
func scanAlarm(r scanner) (domain.Alarm, error) {
	var (
		a                              domain.Alarm
		fireAt, claimedAt, lastFiredAt sql.NullTime
		idempotencyKey, claimedBy      sql.NullString
		kind, status, delivery         string
		payload                        []byte
	)
	err := r.Scan(&a.ID, &a.Owner, &a.Label, &kind, &fireAt, &a.CronExpr, &a.Timezone,
		&a.NextFireAt, &a.ScheduledFor, &a.ConversationID, &a.WakeMessage, &payload, &status,
		&delivery, &idempotencyKey, &a.MaxFailures, &a.FailureCount, &a.LastError, &claimedBy,
		&claimedAt, &a.CreatedAt, &a.UpdatedAt, &lastFiredAt)
	if err != nil {
		return domain.Alarm{}, err
	}
	a.Kind, a.Status, a.Delivery = domain.Kind(kind), domain.Status(status), domain.Delivery(delivery)
	if len(payload) > 0 {
		a.Payload = json.RawMessage(payload)
	}
	a.FireAt, a.ClaimedAt, a.LastFiredAt = fireAt.Time, claimedAt.Time, lastFiredAt.Time
	a.IdempotencyKey, a.ClaimedBy = idempotencyKey.String, claimedBy.String
	// A row that breaks the alarm's invariants is reported, not repaired; mapError
	// adds the package prefix.
	return domain.Rehydrate(a)
}

// scanAlarms reads every row of alarmColumns.
func scanAlarms(rows *sql.Rows) ([]domain.Alarm, error) {
	defer rows.Close()
	var out []domain.Alarm
	for rows.Next() {
		a, err := scanAlarm(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// micro is t as a DATETIME(6) column keeps it: UTC, cut to the microsecond. Every time
// the store writes goes through it, so what it returns is exactly what it stored.
func micro(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(precision)
}

// timeArg is t as a query argument: NULL when zero ("unset"), else micro(t).
func timeArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return micro(t)
}

// stringArg is s as a query argument: NULL when empty, for the columns where NULL
// means "none" (claimed_by, idempotency_key).
func stringArg(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// storedAlarm is a with every time as the store keeps it.
func storedAlarm(a domain.Alarm) domain.Alarm {
	for _, t := range []*time.Time{&a.FireAt, &a.NextFireAt, &a.ScheduledFor, &a.ClaimedAt, &a.CreatedAt, &a.UpdatedAt, &a.LastFiredAt} {
		*t = micro(*t)
	}
	return a
}

// placeholders is "?, ?, ?" with n marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
