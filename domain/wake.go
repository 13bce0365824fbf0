package domain

import (
	"encoding/json"
	"time"
)

// Wake is what a waker delivers for one attempt of one occurrence.
type Wake struct {
	AlarmID        string
	Owner          string
	Label          string
	Kind           Kind
	ScheduledFor   time.Time
	FiredAt        time.Time
	Attempt        int
	OccurrenceKey  string
	ConversationID string
	WakeMessage    string
	Payload        json.RawMessage
	Delivery       Delivery
	// Endpoint is the owner's endpoint the wake goes to; "" for the server's default.
	Endpoint string
	// Redelivery: the owner asked for this past occurrence again (POST
	// /v1/alarms/{id}/redeliver); it carries the occurrence's own key.
	Redelivery bool
	// Notice is set on a failure notice (NoticeFailed, NoticePaused): it goes to the
	// endpoint's failure_url, its body exactly Payload.
	Notice string
	// TraceParent and TraceState are the W3C trace context the wake carries; "" for
	// none. NewWake copies the alarm's (its creator's span); the dispatcher replaces
	// TraceParent with a child of it, this wake's own span, before it calls the Waker, so
	// a Waker sends both as they are.
	TraceParent string
	TraceState  string
}

// NewWake builds the wake for the alarm's current occurrence, sent at now.
func NewWake(a Alarm, now time.Time) Wake {
	return Wake{
		AlarmID:        a.SeriesID(), // a backfill delivers its series' occurrences
		Owner:          a.Owner,
		Label:          a.Label,
		Kind:           a.Kind,
		ScheduledFor:   a.ScheduledFor.UTC(),
		FiredAt:        now.UTC(),
		Attempt:        a.Attempt(),
		OccurrenceKey:  a.OccurrenceKey(),
		ConversationID: a.ConversationID,
		WakeMessage:    a.WakeMessage,
		Payload:        a.Payload,
		Delivery:       a.Delivery,
		Endpoint:       a.Endpoint,
		Notice:         a.Series.Notice,
		TraceParent:    a.TraceParent,
		TraceState:     a.TraceState,
	}
}
