package domain

import (
	"fmt"
	"strings"
	"time"
)

// An owner may send a past occurrence of an alarm again (POST
// /v1/alarms/{id}/redeliver): the receiver gets the same occurrence key (webhook-id),
// so it can tell the wake from a new occurrence and dedupe it as it would a retry.
// Redelivery changes nothing of the alarm but its history: a fired alarm stays fired,
// a series keeps its next occurrence, a failed alarm stays failed.

// deliveryEvents are the events a delivery attempt of an occurrence writes: an
// occurrence with one of them was sent at least once, and so may be sent again. By
// type, not by Receipt: a history read with Events carries no receipts, and events
// written before the attempt log had none.
var deliveryEvents = map[EventType]bool{
	EventFired: true, EventRetryScheduled: true, EventFailed: true, EventSkipped: true,
	EventAttemptDelivered: true, EventAttemptFailed: true, EventRedelivered: true,
}

// recordsDelivery reports whether e records a delivery attempt of its occurrence.
func (e Event) recordsDelivery() bool { return deliveryEvents[e.Type] }

// RedeliveryTarget is the occurrence of a to send again, found in its history (in any
// order; events read twice count once): the one key names, or with key "" the
// occurrence of the latest attempt (the delivery event with the highest id). Attempt is
// the number the redelivery carries: one more than the occurrence's attempts so far. An
// occurrence never attempted cannot be redelivered: there is nothing to send again. A
// failure notice is never redelivered: it is sent as the server made it, at most its
// NoticeMaxFailures times (refuseNotice).
func RedeliveryTarget(a Alarm, history []Event, key string) (scheduledFor time.Time, attempt int, err error) {
	if err := refuseNotice(a, "redeliver"); err != nil {
		return time.Time{}, 0, err
	}
	if key != "" {
		if err := checkOccurrenceKey(a, key); err != nil {
			return time.Time{}, 0, err
		}
	} else {
		latest := int64(-1)
		for _, e := range history {
			if e.recordsDelivery() && !e.ScheduledFor.IsZero() && e.ID > latest {
				latest, key = e.ID, OccurrenceKey(a.SeriesID(), e.ScheduledFor)
			}
		}
		if key == "" {
			return time.Time{}, 0, invalidState("alarm %s has not been delivered yet; there is nothing to redeliver", a.ID)
		}
	}
	// A key carries whole seconds; the occurrence's time is the one its attempts recorded.
	found := false
	for _, e := range history {
		if e.recordsDelivery() && !e.ScheduledFor.IsZero() && OccurrenceKey(a.SeriesID(), e.ScheduledFor) == key {
			found, scheduledFor = true, e.ScheduledFor
			attempt = max(attempt, e.Attempt)
		}
	}
	if !found {
		return time.Time{}, 0, &ValidationError{Field: "occurrence_key",
			Message: fmt.Sprintf("occurrence %s of alarm %s was never delivered (or its history was trimmed); only a past delivery can be sent again", key, a.ID)}
	}
	return scheduledFor.UTC(), attempt + 1, nil
}

// checkOccurrenceKey checks that key can be an occurrence key of a: its series' id,
// "/", a time in RFC 3339 (OccurrenceKey).
func checkOccurrenceKey(a Alarm, key string) error {
	id, at, ok := strings.Cut(key, "/")
	if !ok || id != a.SeriesID() {
		return &ValidationError{Field: "occurrence_key",
			Message: fmt.Sprintf("must be a key of this alarm: %q followed by \"/\" and the occurrence's time, e.g. %q", a.SeriesID(), a.OccurrenceKey())}
	}
	if _, err := time.Parse(time.RFC3339, at); err != nil {
		return &ValidationError{Field: "occurrence_key", Message: fmt.Sprintf("the time after %q must be RFC 3339, e.g. %q", id+"/", a.OccurrenceKey())}
	}
	return nil
}

// RedeliveryWake is the wake that sends a's occurrence at scheduledFor again, as
// attempt number attempt, at now: the alarm's current payload and message, the
// occurrence's own key.
func RedeliveryWake(a Alarm, scheduledFor time.Time, attempt int, now time.Time) Wake {
	a.ScheduledFor = scheduledFor
	w := NewWake(a, now)
	w.Attempt, w.Redelivery = attempt, true
	return w
}

// Redelivered records a redelivery in a's history and changes nothing else: every
// column as it is, its lease kept (a worker delivering its current occurrence records
// that outcome as usual). out is the redelivery's outcome, its Receipt the attempt log's
// entry; worker the node that sent it.
func Redelivered(a Alarm, scheduledFor time.Time, attempt int, worker string, out Outcome, now time.Time) Transition {
	t := base(TransitionRedelivered, a, now)
	t.Fence, t.KeepLease = Fence{}, true
	t.UpdatedAt = a.UpdatedAt // a redelivery is not a change of the alarm
	t.Events = append(t.Events, Event{
		AlarmID: a.ID, Type: EventRedelivered, At: now.UTC(), Attempt: attempt,
		ScheduledFor: scheduledFor.UTC(), Worker: worker, Message: out.Error, Receipt: out.Receipt,
	})
	return t
}

// Redelivery is what one redelivery did.
type Redelivery struct {
	AlarmID       string
	OccurrenceKey string
	ScheduledFor  time.Time
	Attempt       int
	At            time.Time
	Delivered     bool
	Error         string // why it failed; "" when delivered
}

// BulkRedelivery is what one call of an owner's bulk redelivery did.
type BulkRedelivery struct {
	Matched    int // alarms the filter selected, at most the limit
	Delivered  int // of those, redeliveries the receiver acknowledged
	Failed     int // redeliveries the receiver refused or did not answer
	HeldBack   int // not sent: their endpoint had no room (try again later)
	NextCursor string
}

// DefaultRedeliverLimit and MaxRedeliverLimit bound the alarms one bulk redelivery call
// sends: each is a wake that may take the delivery timeout, so a call does a bounded
// amount and hands back a cursor to go on with.
const (
	DefaultRedeliverLimit = 100
	MaxRedeliverLimit     = 1000
)
