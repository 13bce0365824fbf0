package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

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
	o := beginObject(buf)
	alarmMembers(o, a, payload, a.WakeMessage)
	return o.end()
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
func alarmMembers(o *object, a domain.Alarm, payload []byte, wakeMessage string) {
	var next time.Time
	if a.Status == domain.StatusActive {
		next = a.NextFireAt // of a paused or finished alarm it is history, not a promise
	}
	o.str("id", a.ID)
	o.str("label", a.Label)
	o.str("kind", string(a.Kind))
	o.time("fire_at", a.FireAt)
	o.str("cron_expr", a.CronExpr)
	o.str("timezone", a.Timezone)
	o.time("next_fire_at", next)
	o.time("scheduled_for", a.ScheduledFor)
	o.str("conversation_id", a.ConversationID)
	o.str("wake_message", wakeMessage)
	o.raw("payload", payload)
	o.str("status", string(a.Status))
	o.str("delivery", string(a.Delivery))
	o.str("idempotency_key", a.IdempotencyKey)
	o.num("max_failures", a.MaxFailures)
	o.num("failure_count", a.FailureCount)
	o.str("last_error", a.LastError)
	o.time("created_at", a.CreatedAt)
	o.time("updated_at", a.UpdatedAt)
	o.time("last_fired_at", a.LastFiredAt)
	o.str("endpoint", a.Endpoint)
	if a.Kind == domain.KindCron {
		seriesMembers(o, a)
	}
}

// seriesMembers adds a cron alarm's options and series state; a once alarm has none.
func seriesMembers(o *object, a domain.Alarm) {
	s := a.Series
	o.str("misfire", string(s.Policy()))
	o.numOrNull("catch_up_limit", s.Limit(), s.Policy() == domain.MisfireCatchUp)
	o.strOrNull("catch_up_window", s.CatchUpWindow.String(), s.CatchUpWindow > 0)
	o.num("max_consecutive_skips", s.MaxConsecutiveSkips)
	o.time("start_at", s.StartAt)
	o.time("end_at", s.EndAt)
	o.num("max_fires", s.MaxFires)
	remaining, bounded := a.RemainingFires()
	o.numOrNull("remaining_fires", remaining, bounded)
	o.num("jitter_seconds", s.JitterSeconds)
	o.num("fire_count", a.FireCount)
	o.num("skip_streak", a.SkipStreak)
	o.str("paused_reason", a.PausedReason)
	o.time("paused_until", a.PausedUntil)
	o.str("backfill_of", s.BackfillOf)
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
	if err := appendJSON(&buf, next); err != nil {
		return nil, err
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// eventView is one row of an alarm's history as the API shows it.
type eventView struct {
	ID            int64    `json:"id"`
	Type          string   `json:"type"`
	At            jsonTime `json:"at"`
	Attempt       int      `json:"attempt"` // 0 when the event concerns no delivery
	ScheduledFor  jsonTime `json:"scheduled_for"`
	OccurrenceKey string   `json:"occurrence_key"` // "" when it concerns no occurrence
	Worker        string   `json:"worker"`         // "" for owner actions
	Message       string   `json:"message"`
}

func newEventView(e domain.Event) eventView {
	v := eventView{
		ID:           e.ID,
		Type:         string(e.Type),
		At:           jsonTime(e.At),
		Attempt:      e.Attempt,
		ScheduledFor: jsonTime(e.ScheduledFor),
		Worker:       e.Worker,
		Message:      e.Message,
	}
	if !e.ScheduledFor.IsZero() {
		// The key the receiver saw in Idempotency-Key, so history and wakes line up.
		v.OccurrenceKey = domain.OccurrenceKey(e.AlarmID, e.ScheduledFor)
	}
	return v
}
