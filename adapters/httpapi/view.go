package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
)

// appendAlarm writes the alarm as the API shows it, members in this fixed order. The
// owner and the lease are left out: the owner is the caller, and the lease is the
// dispatcher's business. The payload is copied byte for byte as stored.
func appendAlarm(buf *bytes.Buffer, a domain.Alarm) error {
	payload, err := storedPayload(a)
	if err != nil {
		return err
	}
	o := jsonio.BeginObject(buf)
	alarmMembers(o, a, payload, a.WakeMessage)
	return o.End()
}

// storedPayload is the alarm's payload as JSON to copy into a response.
func storedPayload(a domain.Alarm) ([]byte, error) {
	payload := []byte(a.Payload)
	if len(payload) == 0 {
		payload = []byte("null")
	}
	// Copying bytes unchecked into the response would let one corrupt row break the
	// whole document for the client; refuse it instead (a 500, logged).
	if !json.Valid(payload) {
		return nil, fmt.Errorf("httpapi: alarm %s: stored payload is not valid JSON", a.ID)
	}
	return payload, nil
}

// alarmMembers adds the members every view of an alarm has, with the payload and wake
// message given (the admin view may redact them).
func alarmMembers(o *jsonio.Object, a domain.Alarm, payload []byte, wakeMessage string) {
	var next time.Time
	if a.Status == domain.StatusActive {
		next = a.NextFireAt // of a paused or finished alarm it is history, not a promise
	}
	o.Str("id", a.ID)
	o.Str("label", a.Label)
	o.Str("kind", string(a.Kind))
	o.Time("fire_at", a.FireAt)
	o.Str("cron_expr", a.CronExpr)
	o.Str("timezone", a.Timezone)
	o.Time("next_fire_at", next)
	o.Time("scheduled_for", a.ScheduledFor)
	o.Str("conversation_id", a.ConversationID)
	o.Str("wake_message", wakeMessage)
	o.Raw("payload", payload)
	o.Str("status", string(a.Status))
	o.Str("delivery", string(a.Delivery))
	o.Str("idempotency_key", a.IdempotencyKey)
	o.Num("max_failures", a.MaxFailures)
	o.Num("failure_count", a.FailureCount)
	o.Str("last_error", a.LastError)
	o.Time("created_at", a.CreatedAt)
	o.Time("updated_at", a.UpdatedAt)
	o.Time("last_fired_at", a.LastFiredAt)
	o.Str("endpoint", a.Endpoint)
	o.Value("tags", tagsValue(a))
	if a.Kind == domain.KindCron {
		seriesMembers(o, a)
	}
}

// seriesMembers adds a cron alarm's options and series state; a once alarm has none.
func seriesMembers(o *jsonio.Object, a domain.Alarm) {
	s := a.Series
	o.Str("misfire", string(s.Policy()))
	o.NumOrNull("catch_up_limit", s.Limit(), s.Policy() == domain.MisfireCatchUp)
	o.StrOrNull("catch_up_window", s.CatchUpWindow.String(), s.CatchUpWindow > 0)
	o.Num("max_consecutive_skips", s.MaxConsecutiveSkips)
	o.Time("start_at", s.StartAt)
	o.Time("end_at", s.EndAt)
	o.Num("max_fires", s.MaxFires)
	remaining, bounded := a.RemainingFires()
	o.NumOrNull("remaining_fires", remaining, bounded)
	o.Num("jitter_seconds", s.JitterSeconds)
	o.Num("fire_count", a.FireCount)
	o.Num("skip_streak", a.SkipStreak)
	o.Str("paused_reason", a.PausedReason)
	o.Time("paused_until", a.PausedUntil)
	o.Str("backfill_of", s.BackfillOf)
	calendars := s.ExcludeCalendars
	if calendars == nil {
		calendars = []string{}
	}
	o.Value("exclude_calendars", calendars)
}

// alarmBody is {"alarm": ...}, with "deduped" when the reply is to a create.
func alarmBody(a domain.Alarm, deduped *bool) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"alarm":`)
	if err := appendAlarm(&buf, a); err != nil {
		return nil, err
	}
	if deduped != nil {
		fmt.Fprintf(&buf, `,"deduped":%t`, *deduped)
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// alarmsBody is {"alarms": [...], "next_cursor": "..."}.
func alarmsBody(alarms []domain.Alarm, next string) ([]byte, error) {
	return pageBody(alarms, next, appendAlarm)
}

// pageBody is a page of alarms, each written by appendOne (the owner's view or the
// admin's): {"alarms": [...], "next_cursor": "..."}.
func pageBody(alarms []domain.Alarm, next string, appendOne func(*bytes.Buffer, domain.Alarm) error) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"alarms":[`)
	for i, a := range alarms {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := appendOne(&buf, a); err != nil {
			return nil, err
		}
	}
	buf.WriteString(`],"next_cursor":`)
	if err := jsonio.Append(&buf, next); err != nil {
		return nil, err
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// eventView is one row of an alarm's history as the API shows it.
type eventView struct {
	ID            int64       `json:"id"`
	Type          string      `json:"type"`
	At            jsonio.Time `json:"at"`
	Attempt       int         `json:"attempt"` // 0 when the event concerns no delivery
	ScheduledFor  jsonio.Time `json:"scheduled_for"`
	OccurrenceKey string      `json:"occurrence_key"` // "" when it concerns no occurrence
	Worker        string      `json:"worker"`         // "" for owner actions
	Message       string      `json:"message"`
}

// newEventView is e, an event of the alarm whose wakes carry series (its id, or a
// backfill's series').
func newEventView(e domain.Event, series string) eventView {
	v := eventView{
		ID:           e.ID,
		Type:         string(e.Type),
		At:           jsonio.Time(e.At),
		Attempt:      e.Attempt,
		ScheduledFor: jsonio.Time(e.ScheduledFor),
		Worker:       e.Worker,
		Message:      e.Message,
	}
	if !e.ScheduledFor.IsZero() {
		// The key the receiver saw in Idempotency-Key, so history and wakes line up.
		v.OccurrenceKey = domain.OccurrenceKey(series, e.ScheduledFor)
	}
	return v
}
