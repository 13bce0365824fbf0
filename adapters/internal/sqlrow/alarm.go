package sqlrow

import (
	"fmt"
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// AlarmColumns is the column list every alarm read selects, in Alarms.Scan's order (and
// every alarm insert writes). Then come a cron series' options (series, JSON: see
// EncodeSeries) and state (migration 00006), and last the endpoint its wakes go to
// (00007), and the W3C trace context it was created in (00015, NULL for none). These
// are written by inserts only: a transition never changes them, so Apply's statements
// leave them out.
const AlarmColumns = `id, owner, label, kind, fire_at, cron_expr, timezone, next_fire_at,
	scheduled_for, conversation_id, wake_message, payload, status, delivery,
	idempotency_key, max_failures, failure_count, last_error, claimed_by, claimed_at,
	created_at, updated_at, last_fired_at,
	series, fire_count, skip_streak, paused_reason, paused_until,
	endpoint, trace_parent, trace_state`

// Qualified is a column list (such as AlarmColumns) with each column prefixed by
// table, for a statement that joins another table with columns of the same names.
func Qualified(table, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = table + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// AlarmParams is how many values one row of AlarmColumns binds.
const AlarmParams = 31

// Alarms reads rows of AlarmColumns into the same scan targets row after row. Scan
// takes its targets as interfaces, so targets declared per row escape to the heap, a
// dozen allocations a row, most of what reading a claim cost. What a row returns (strings, the payload) is always a fresh copy
// (database/sql copies driver bytes into a *string or *[]byte target; pgx allocates
// them), never shared with the next row. An Alarms is for one goroutine.
//
// T is what the store's driver scans a time column into, S a text column that may be
// NULL (claimed_by, series, the trace context, and idempotency_key where "none" is NULL).
type Alarms[T, S any] struct {
	a                                           domain.Alarm
	kind, status, delivery                      string
	payload                                     []byte
	idempotencyKey, claimedBy, series           S
	traceParent, traceState                     S
	fireAt, nextFireAt, scheduledFor, claimedAt T
	createdAt, updatedAt, lastFiredAt           T
	pausedUntil                                 T
	toTime                                      func(T) time.Time
	toText                                      func(S) string
	dest                                        []any
}

// NewAlarms makes a scanner for one store: toTime turns a scanned time into the
// domain's (the zero time for NULL), toText a scanned nullable text ("" for NULL).
func NewAlarms[T, S any](toTime func(T) time.Time, toText func(S) string) *Alarms[T, S] {
	s := &Alarms[T, S]{toTime: toTime, toText: toText}
	a := &s.a
	s.dest = []any{&a.ID, &a.Owner, &a.Label, &s.kind, &s.fireAt, &a.CronExpr, &a.Timezone, &s.nextFireAt,
		&s.scheduledFor, &a.ConversationID, &a.WakeMessage, &s.payload, &s.status, &s.delivery,
		&s.idempotencyKey, &a.MaxFailures, &a.FailureCount, &a.LastError, &s.claimedBy, &s.claimedAt,
		&s.createdAt, &s.updatedAt, &s.lastFiredAt,
		&s.series, &a.FireCount, &a.SkipStreak, &a.PausedReason, &s.pausedUntil,
		&a.Endpoint, &s.traceParent, &s.traceState}
	return s
}

// Scan reads one row of AlarmColumns and checks it with domain.Rehydrate: a row that
// breaks the alarm's invariants is reported, not repaired.
func (s *Alarms[T, S]) Scan(r Scanner) (domain.Alarm, error) {
	s.a, s.payload = domain.Alarm{}, nil
	if err := r.Scan(s.dest...); err != nil {
		return domain.Alarm{}, err
	}
	a := s.a
	a.Kind, a.Status, a.Delivery = domain.Kind(s.kind), domain.Status(s.status), domain.Delivery(s.delivery)
	a.Payload = s.payload
	a.IdempotencyKey, a.ClaimedBy = s.toText(s.idempotencyKey), s.toText(s.claimedBy)
	a.FireAt, a.NextFireAt, a.ScheduledFor = s.toTime(s.fireAt), s.toTime(s.nextFireAt), s.toTime(s.scheduledFor)
	a.ClaimedAt, a.CreatedAt, a.UpdatedAt = s.toTime(s.claimedAt), s.toTime(s.createdAt), s.toTime(s.updatedAt)
	a.LastFiredAt, a.PausedUntil = s.toTime(s.lastFiredAt), s.toTime(s.pausedUntil)
	a.TraceParent, a.TraceState = s.toText(s.traceParent), s.toText(s.traceState)
	series, err := DecodeSeries(s.toText(s.series))
	if err != nil {
		return domain.Alarm{}, fmt.Errorf("sqlrow: stored alarm %s: %w", a.ID, err)
	}
	a.Series = series
	return domain.Rehydrate(a)
}

// All reads every row of rs (AlarmColumns), hint being how many are expected.
func (s *Alarms[T, S]) All(rs Rows, hint int) ([]domain.Alarm, error) {
	return All(rs, hint, s.Scan)
}
