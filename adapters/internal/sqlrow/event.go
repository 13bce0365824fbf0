package sqlrow

import (
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// EventColumns are the columns an event insert writes, in AppendEvent's order (the id
// is the database's).
const EventColumns = `alarm_id, type, at, attempt, scheduled_for, worker, message`

// EventParams is how many values one event row binds.
const EventParams = 7

// AppendEvent appends e's values, in EventColumns order, to args; timeArg is how the
// store binds a time (at its precision, NULL for the zero time). Appending, not
// returning a slice, keeps a batch of events at one allocation of args.
func AppendEvent(args []any, e domain.Event, timeArg func(time.Time) any) []any {
	return append(args, e.AlarmID, string(e.Type), timeArg(e.At), e.Attempt, timeArg(e.ScheduledFor), e.Worker, e.Message)
}

// ReceiptColumns are the attempt log's columns of an event row (migration 00014), in
// AppendReceipt's order: all NULL on an event that is not an attempt.
const ReceiptColumns = `duration_us, http_status, response_type, response_body, response_truncated`

// ReceiptParams is how many values AppendReceipt binds.
const ReceiptParams = 5

// AppendReceipt appends r's values, in ReceiptColumns order, to args: NULLs for nil (an
// event that is no attempt); of an attempt, the duration in microseconds always, and
// NULL for a status, content type or body it has not.
func AppendReceipt(args []any, r *domain.Receipt) []any {
	if r == nil {
		return append(args, nil, nil, nil, nil, nil)
	}
	var status, typ, body any
	if r.Status != 0 {
		status = int64(r.Status)
	}
	if r.ContentType != "" {
		typ = r.ContentType
	}
	if len(r.Body) > 0 {
		body = r.Body
	}
	return append(args, r.Duration.Microseconds(), status, typ, body, r.Truncated)
}

// ReceiptScan reads ReceiptColumns: Dest are the scan destinations, in order, and
// Receipt what they held once scanned (nil for a NULL duration: no attempt).
type ReceiptScan struct {
	durationUS, status *int64
	typ                *string
	body               []byte
	truncated          *bool
}

// Dest are the destinations of ReceiptColumns for Scan.
func (s *ReceiptScan) Dest() []any {
	return []any{&s.durationUS, &s.status, &s.typ, &s.body, &s.truncated}
}

// Receipt is what the scanned columns held.
func (s *ReceiptScan) Receipt() *domain.Receipt {
	if s.durationUS == nil {
		return nil
	}
	r := &domain.Receipt{Duration: time.Duration(*s.durationUS) * time.Microsecond}
	if s.status != nil {
		r.Status = int(*s.status)
	}
	if s.typ != nil {
		r.ContentType = *s.typ
	}
	if len(s.body) > 0 {
		r.Body = append([]byte(nil), s.body...)
	}
	r.Truncated = s.truncated != nil && *s.truncated
	return r
}

// An event row as every store inserts it: the event's columns and its receipt's (NULLs
// when it records no attempt).
const (
	EventRowColumns = EventColumns + `, ` + ReceiptColumns
	EventRowParams  = EventParams + ReceiptParams
)

// EventRowColumnNames are EventRowColumns one by one (a COPY names its columns so).
var EventRowColumnNames = strings.Split(EventRowColumns, `, `)

// AppendEventRow appends e's row, in EventRowColumns order, to args: its event's values
// and its receipt's.
func AppendEventRow(args []any, e domain.Event, timeArg func(time.Time) any) []any {
	return AppendReceipt(AppendEvent(args, e, timeArg), e.Receipt)
}
