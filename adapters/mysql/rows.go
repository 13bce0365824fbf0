package mysql

import (
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqltext"
	"github.com/chronoshq/chronos/domain"
)

// precision is what a DATETIME(6) column keeps.
const precision = time.Microsecond

// alarmColumns is the column list every alarm read selects, in scanAlarm's order.
const alarmColumns = `id, owner, label, kind, fire_at, cron_expr, timezone, next_fire_at, scheduled_for,
	conversation_id, wake_message, payload, status, delivery, idempotency_key, max_failures,
	failure_count, last_error, claimed_by, claimed_at, created_at, updated_at, last_fired_at`

// qualified is a column list with each column prefixed by table.
func qualified(table, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = table + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// scanner is *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// scanAlarm reads one row of alarmColumns and checks it with domain.Rehydrate.
func scanAlarm(r scanner) (domain.Alarm, error) {
	return newAlarmScanner().scan(r)
}

// scanAlarms reads every row of alarmColumns.
func scanAlarms(rows *sql.Rows) ([]domain.Alarm, error) {
	defer rows.Close()
	var out []domain.Alarm
	s := newAlarmScanner()
	for rows.Next() {
		a, err := s.scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// alarmScanner reads rows of alarmColumns into the same scan targets row after row.
// Scan takes its targets as interfaces, so targets declared per row escape to the heap,
// a dozen allocations a row: for a claim of 1,000 that was most of what reading the
// claim cost the dispatcher. What a row returns (strings, the payload) is always a
// fresh copy (database/sql copies driver bytes into a *string or *[]byte target).
type alarmScanner struct {
	a                              domain.Alarm
	fireAt, claimedAt, lastFiredAt sql.NullTime
	idempotencyKey, claimedBy      sql.NullString
	kind, status, delivery         string
	payload                        []byte
	dest                           []any
}

func newAlarmScanner() *alarmScanner {
	s := &alarmScanner{}
	a := &s.a
	s.dest = []any{&a.ID, &a.Owner, &a.Label, &s.kind, &s.fireAt, &a.CronExpr, &a.Timezone,
		&a.NextFireAt, &a.ScheduledFor, &a.ConversationID, &a.WakeMessage, &s.payload, &s.status,
		&s.delivery, &s.idempotencyKey, &a.MaxFailures, &a.FailureCount, &a.LastError, &s.claimedBy,
		&s.claimedAt, &a.CreatedAt, &a.UpdatedAt, &s.lastFiredAt}
	return s
}

func (s *alarmScanner) scan(r scanner) (domain.Alarm, error) {
	s.a, s.payload = domain.Alarm{}, nil
	if err := r.Scan(s.dest...); err != nil {
		return domain.Alarm{}, err
	}
	a := s.a
	a.Kind, a.Status, a.Delivery = domain.Kind(s.kind), domain.Status(s.status), domain.Delivery(s.delivery)
	if len(s.payload) > 0 {
		a.Payload = json.RawMessage(s.payload)
	}
	a.FireAt, a.ClaimedAt, a.LastFiredAt = s.fireAt.Time, s.claimedAt.Time, s.lastFiredAt.Time
	a.IdempotencyKey, a.ClaimedBy = s.idempotencyKey.String, s.claimedBy.String
	// A row that breaks the alarm's invariants is reported, not repaired; mapError
	// adds the package prefix.
	return domain.Rehydrate(a)
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
func placeholders(n int) string { return sqltext.Placeholders(n) }
