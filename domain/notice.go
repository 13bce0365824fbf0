package domain

import (
	"encoding/json"
	"strconv"
	"time"
)

// Failure notices: when an alarm that names an endpoint fails for good, or a series
// pauses itself, its owner hears of it at the endpoint's failure_url. The notice is an
// alarm of its own (a once alarm due at once, Series.Notice its type, its payload the
// notice's body), created by the store in the same transaction as the transition that
// caused it (Transition.Notice): so it is delivered at least once, retried with the
// backoff like any wake, and recorded in its own history, and it is never created for a
// transition that did not apply.
const (
	NoticeFailed = "alarm.failed" // a once alarm ended failed
	NoticePaused = "alarm.paused" // a series paused itself (the breaker, or a schedule that no longer parses)
)

// NoticeMaxFailures is how many deliveries a notice gets before it fails (it sends no
// notice of its own).
const NoticeMaxFailures = 10

// A notice is the server's, not its owner's: its body is signed with the endpoint's
// secrets and may reach a receiver other owners' notices reach too, so what it says,
// how often it is sent and when must stay what Decide made. Its owner may read, cancel
// and delete it; Update, Trigger and RedeliveryTarget refuse it (refuseNotice), and no
// create path takes Series.Notice (Spec.validate). An admin's retry or trigger sends it
// as it is.

// refuseNotice is the refusal of an owner action that would change what a notice sends
// or when, or nil for any other alarm.
func refuseNotice(a Alarm, action string) error {
	if a.Series.Notice == "" {
		return nil
	}
	return invalidState("alarm %s is a failure notice: the server sends it as it was made; its owner can cancel it, not %s it", a.ID, action)
}

// noticeBody is what a notice delivers: its type, when, and the alarm as it now is.
type noticeBody struct {
	Type  string      `json:"type"`
	At    time.Time   `json:"at"`
	Alarm noticeAlarm `json:"alarm"`
}

type noticeAlarm struct {
	ID             string    `json:"id"`
	Owner          string    `json:"owner"`
	Label          string    `json:"label"`
	Kind           Kind      `json:"kind"`
	Status         Status    `json:"status"`
	CronExpr       string    `json:"cron_expr,omitempty"`
	Timezone       string    `json:"timezone,omitempty"`
	ScheduledFor   time.Time `json:"scheduled_for"`
	OccurrenceKey  string    `json:"occurrence_key"`
	FailureCount   int       `json:"failure_count"`
	LastError      string    `json:"last_error"`
	PausedReason   string    `json:"paused_reason,omitempty"`
	ConversationID string    `json:"conversation_id,omitempty"`
	Endpoint       string    `json:"endpoint"`
}

// attachNotice adds to t the notice its change calls for, if any: a's own transition,
// decided at now. Notices are not sent of notices.
func (t *Transition) attachNotice(a Alarm, now time.Time) {
	if a.Endpoint == "" || a.Series.Notice != "" {
		return
	}
	var typ string
	switch {
	case t.Status == StatusFailed && a.Status != StatusFailed:
		typ = NoticeFailed
	case t.Status == StatusPaused && a.Status != StatusPaused:
		typ = NoticePaused
	default:
		return
	}
	after := t.ApplyTo(a)
	body, err := json.Marshal(noticeBody{Type: typ, At: now.UTC(), Alarm: noticeAlarm{
		ID: after.ID, Owner: after.Owner, Label: after.Label, Kind: after.Kind, Status: after.Status,
		CronExpr: after.CronExpr, Timezone: after.Timezone, ScheduledFor: after.ScheduledFor,
		OccurrenceKey: a.OccurrenceKey(), FailureCount: after.FailureCount, LastError: after.LastError,
		PausedReason: after.PausedReason, ConversationID: after.ConversationID, Endpoint: after.Endpoint,
	}})
	if err != nil {
		return // strings, numbers and times only: cannot fail
	}
	now = now.UTC()
	t.Notice = &Alarm{
		// Derived from the alarm and the instant, so a transition decided again (a retried
		// Apply) names the same notice, and an alarm's notices sort with it.
		ID:    a.ID + "-notice-" + strconv.FormatInt(now.UnixNano(), 36),
		Owner: a.Owner, Label: noticeLabel(a.Label), Kind: KindOnce,
		FireAt: now, NextFireAt: now, ScheduledFor: now,
		ConversationID: a.ConversationID, Payload: body,
		Status: StatusActive, Delivery: AtLeastOnce, MaxFailures: NoticeMaxFailures,
		Endpoint: a.Endpoint, Series: Series{Notice: typ},
		CreatedAt: now, UpdatedAt: now,
		// The notice continues the trace of the alarm it is about.
		TraceParent: a.TraceParent, TraceState: a.TraceState,
	}
}

func noticeLabel(label string) string {
	l := []rune("notice: " + label)
	return string(l[:min(len(l), MaxLabelLen)])
}
