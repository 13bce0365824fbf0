package contract

import (
	"bytes"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Stores keep times to their declared TimePrecision (truncating or rounding what they
// are given), so the suite compares times within it. A zero time is "unset" and must
// come back zero; a set time must never come back zero.

// tolerance is the largest difference two times that "match" may have.
func (e *env) tolerance() time.Duration {
	return max(e.caps.TimePrecision, time.Nanosecond)
}

// sameTime reports whether got is want as the store keeps it.
func (e *env) sameTime(got, want time.Time) bool {
	if want.IsZero() || got.IsZero() {
		return want.IsZero() && got.IsZero()
	}
	d := got.Sub(want)
	if d < 0 {
		d = -d
	}
	return d < e.tolerance()
}

// wantTime fails the test unless got matches want.
func (e *env) wantTime(what string, got, want time.Time) {
	e.t.Helper()
	if !e.sameTime(got, want) {
		e.t.Errorf("%s = %s, want %s (within %s)", what, fmtTime(got), fmtTime(want), e.tolerance())
	}
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "<zero>"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// alarmDiff lists the fields in which got differs from want, one per line; "" when the
// alarms match. Payload is compared byte for byte.
func (e *env) alarmDiff(got, want domain.Alarm) string {
	var b strings.Builder
	str := func(name, g, w string) {
		if g != w {
			fmt.Fprintf(&b, "\n  %s = %q, want %q", name, g, w)
		}
	}
	num := func(name string, g, w int) {
		if g != w {
			fmt.Fprintf(&b, "\n  %s = %d, want %d", name, g, w)
		}
	}
	tm := func(name string, g, w time.Time) {
		if !e.sameTime(g, w) {
			fmt.Fprintf(&b, "\n  %s = %s, want %s", name, fmtTime(g), fmtTime(w))
		}
	}
	str("ID", got.ID, want.ID)
	str("Owner", got.Owner, want.Owner)
	str("Label", got.Label, want.Label)
	str("Kind", string(got.Kind), string(want.Kind))
	tm("FireAt", got.FireAt, want.FireAt)
	str("CronExpr", got.CronExpr, want.CronExpr)
	str("Timezone", got.Timezone, want.Timezone)
	tm("NextFireAt", got.NextFireAt, want.NextFireAt)
	tm("ScheduledFor", got.ScheduledFor, want.ScheduledFor)
	str("ConversationID", got.ConversationID, want.ConversationID)
	str("WakeMessage", got.WakeMessage, want.WakeMessage)
	if !bytes.Equal(got.Payload, want.Payload) {
		fmt.Fprintf(&b, "\n  Payload = %s, want %s (byte for byte)", clip(got.Payload), clip(want.Payload))
	}
	str("Status", string(got.Status), string(want.Status))
	str("Delivery", string(got.Delivery), string(want.Delivery))
	str("IdempotencyKey", got.IdempotencyKey, want.IdempotencyKey)
	num("MaxFailures", got.MaxFailures, want.MaxFailures)
	num("FailureCount", got.FailureCount, want.FailureCount)
	str("LastError", got.LastError, want.LastError)
	str("ClaimedBy", got.ClaimedBy, want.ClaimedBy)
	tm("ClaimedAt", got.ClaimedAt, want.ClaimedAt)
	tm("CreatedAt", got.CreatedAt, want.CreatedAt)
	tm("UpdatedAt", got.UpdatedAt, want.UpdatedAt)
	tm("LastFiredAt", got.LastFiredAt, want.LastFiredAt)
	num("FireCount", got.FireCount, want.FireCount)
	num("SkipStreak", got.SkipStreak, want.SkipStreak)
	str("PausedReason", got.PausedReason, want.PausedReason)
	tm("PausedUntil", got.PausedUntil, want.PausedUntil)
	str("Endpoint", got.Endpoint, want.Endpoint)
	str("TraceParent", got.TraceParent, want.TraceParent)
	str("TraceState", got.TraceState, want.TraceState)
	// The series' options: its times within the store's precision like the others; the
	// window exactly (the API's are whole seconds).
	gs, ws := got.Series, want.Series
	str("Series.Misfire", string(gs.Misfire), string(ws.Misfire))
	num("Series.CatchUpLimit", gs.CatchUpLimit, ws.CatchUpLimit)
	if gs.CatchUpWindow != ws.CatchUpWindow {
		fmt.Fprintf(&b, "\n  Series.CatchUpWindow = %s, want %s", gs.CatchUpWindow, ws.CatchUpWindow)
	}
	num("Series.MaxConsecutiveSkips", gs.MaxConsecutiveSkips, ws.MaxConsecutiveSkips)
	tm("Series.StartAt", gs.StartAt, ws.StartAt)
	tm("Series.EndAt", gs.EndAt, ws.EndAt)
	num("Series.MaxFires", gs.MaxFires, ws.MaxFires)
	num("Series.JitterSeconds", gs.JitterSeconds, ws.JitterSeconds)
	str("Series.Notice", gs.Notice, ws.Notice)
	str("Series.ExcludeCalendars", strings.Join(gs.ExcludeCalendars, ","), strings.Join(ws.ExcludeCalendars, ","))
	str("Series.BackfillOf", gs.BackfillOf, ws.BackfillOf)
	if !maps.Equal(got.Tags, want.Tags) {
		fmt.Fprintf(&b, "\n  Tags = %v, want %v", got.Tags, want.Tags)
	}
	return b.String()
}

// wantAlarm fails the test when got differs from want in any field.
func (e *env) wantAlarm(what string, got, want domain.Alarm) {
	e.t.Helper()
	if d := e.alarmDiff(got, want); d != "" {
		e.t.Errorf("%s (alarm %s) differs:%s", what, want.ID, d)
	}
}

// wantStored fails unless the stored row of want (read back with Get) equals want.
func (e *env) wantStored(what string, want domain.Alarm) {
	e.t.Helper()
	e.wantAlarm(what+": Get", e.get(want.Owner, want.ID), want)
}

// sameLease fails unless got carries exactly the lease of want. Leases are compared
// exactly, not within tolerance: a worker fences its writes on the ClaimedAt ClaimDue
// returned, so that value must equal the stored one to the nanosecond.
func (e *env) sameLease(what string, got, want domain.Alarm) {
	e.t.Helper()
	if got.ClaimedBy != want.ClaimedBy || !got.ClaimedAt.Equal(want.ClaimedAt) {
		e.t.Errorf("%s: lease = (%q, %s), want exactly (%q, %s)", what,
			got.ClaimedBy, fmtTime(got.ClaimedAt), want.ClaimedBy, fmtTime(want.ClaimedAt))
	}
}

// eventDiff is like alarmDiff for events, ignoring the store-assigned ID.
func (e *env) eventDiff(got, want domain.Event) string {
	var b strings.Builder
	if got.AlarmID != want.AlarmID {
		fmt.Fprintf(&b, " AlarmID = %q, want %q;", got.AlarmID, want.AlarmID)
	}
	if got.Type != want.Type {
		fmt.Fprintf(&b, " Type = %q, want %q;", got.Type, want.Type)
	}
	if !e.sameTime(got.At, want.At) {
		fmt.Fprintf(&b, " At = %s, want %s;", fmtTime(got.At), fmtTime(want.At))
	}
	if got.Attempt != want.Attempt {
		fmt.Fprintf(&b, " Attempt = %d, want %d;", got.Attempt, want.Attempt)
	}
	if !e.sameTime(got.ScheduledFor, want.ScheduledFor) {
		fmt.Fprintf(&b, " ScheduledFor = %s, want %s;", fmtTime(got.ScheduledFor), fmtTime(want.ScheduledFor))
	}
	if got.Worker != want.Worker {
		fmt.Fprintf(&b, " Worker = %q, want %q;", got.Worker, want.Worker)
	}
	if got.Message != want.Message {
		fmt.Fprintf(&b, " Message = %q, want %q;", got.Message, want.Message)
	}
	return b.String()
}

// eventRowDiff is eventDiff with the receipt too: for reads that return every stored
// field of an event (ExportEvents, Attempts), not the history.
func (e *env) eventRowDiff(got, want domain.Event) string {
	return e.eventDiff(got, want) + receiptDiff(got.Receipt, want.Receipt)
}

// receiptDiff says how got differs from the receipt a store keeps of want: its duration
// in whole microseconds, an empty body as none.
func receiptDiff(got, want *domain.Receipt) string {
	switch {
	case got == nil && want == nil:
		return ""
	case got == nil || want == nil:
		return fmt.Sprintf(" Receipt = %s, want %s;", fmtReceipt(got), fmtReceipt(want))
	}
	w := *want
	w.Duration = w.Duration.Truncate(time.Microsecond)
	if got.Duration != w.Duration || got.Status != w.Status || got.ContentType != w.ContentType ||
		!bytes.Equal(got.Body, w.Body) || got.Truncated != w.Truncated {
		return fmt.Sprintf(" Receipt = %s, want %s;", fmtReceipt(got), fmtReceipt(&w))
	}
	return ""
}

func fmtReceipt(r *domain.Receipt) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("{%s %d %q %q truncated=%t}", r.Duration, r.Status, r.ContentType, r.Body, r.Truncated)
}

// wantEvents checks an alarm's history: the created event first (wantCreatedEvent),
// then exactly the events of the
// applied transitions, in order, with store-assigned ids strictly increasing.
func (e *env) wantEvents(what string, got []domain.Event, created domain.Alarm, want ...domain.Event) {
	e.t.Helper()
	if len(got) != 1+len(want) {
		e.t.Errorf("%s: %d events %v, want %d (created + %v)", what, len(got), eventTypes(got), 1+len(want), eventTypes(want))
		return
	}
	e.wantCreatedEvent(what, got[0], created)
	for i, w := range want {
		if d := e.eventDiff(got[i+1], w); d != "" {
			e.t.Errorf("%s: event %d (%s) differs:%s", what, i+1, w.Type, d)
		}
	}
	for i := 1; i < len(got); i++ {
		if got[i].ID <= got[i-1].ID {
			e.t.Errorf("%s: event ids not increasing: %d then %d", what, got[i-1].ID, got[i].ID)
		}
	}
}

// wantCreatedEvent checks the event a history begins with: domain.CreatedEvent of the
// alarm's row, which Events builds (Create stores no event).
func (e *env) wantCreatedEvent(what string, got domain.Event, a domain.Alarm) {
	e.t.Helper()
	want := domain.CreatedEvent(a.ID, a.CreatedAt, a.FireAt)
	if got.ID != 0 || got.Type != want.Type || got.AlarmID != want.AlarmID || !e.sameTime(got.At, want.At) ||
		!e.sameTime(got.ScheduledFor, want.ScheduledFor) || got.Attempt != 0 || got.Worker != "" || got.Message != "" {
		e.t.Errorf("%s: first event = %+v, want %+v (built from the alarm's row, id 0)", what, got, want)
	}
}

// eventsOf gathers the events of transitions, in order.
func eventsOf(ts ...domain.Transition) []domain.Event {
	var out []domain.Event
	for _, t := range ts {
		out = append(out, t.Events...)
	}
	return out
}

func eventTypes(evs []domain.Event) []domain.EventType {
	out := make([]domain.EventType, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}

// clip shortens long payloads in failure messages.
func clip(b []byte) string {
	const n = 80
	if len(b) <= n {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q... (%d bytes)", b[:n], len(b))
}
