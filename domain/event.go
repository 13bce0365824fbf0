package domain

import "time"

// EventType names a change in an alarm's history.
type EventType string

const (
	EventCreated          EventType = "created"
	EventAttemptDelivered EventType = "attempt_delivered" // at-most-once: the wake after the advance arrived
	EventAttemptFailed    EventType = "attempt_failed"    // at-most-once: the wake after the advance failed; not retried
	EventRetryScheduled   EventType = "retry_scheduled"   // a delivery failed; another attempt is due at NextFireAt
	EventFired            EventType = "fired"             // an occurrence was delivered (at-most-once: dispatched)
	EventSkipped          EventType = "skipped"           // cron: deliveries exhausted; the series moved on
	EventFailed           EventType = "failed"            // once: deliveries exhausted
	EventCancelled        EventType = "cancelled"
	EventPaused           EventType = "paused"
	EventResumed          EventType = "resumed"
	EventTriggered        EventType = "triggered"
	EventRetried          EventType = "retried"     // an admin made a failed alarm due again
	EventMissed           EventType = "missed"      // cron: a gap of occurrences dropped (Message: how many, first to last)
	EventUpdated          EventType = "updated"     // the owner changed the definition (Message: which fields)
	EventDeferred         EventType = "deferred"    // at-most-once: a wake held back after its advance; the advance undone
	EventExcluded         EventType = "excluded"    // cron: a run of occurrences its calendars excluded (Message: first to next)
	EventRedelivered      EventType = "redelivered" // the owner sent a past occurrence again (Message: why it failed; "" when delivered)
)

// Event is one row of an alarm's history. ID is assigned by the store, increasing in
// insertion order per store.
type Event struct {
	ID           int64
	AlarmID      string
	Type         EventType
	At           time.Time
	Attempt      int       // the delivery attempt it concerns; 0 when none
	ScheduledFor time.Time // the occurrence it concerns; zero when none
	Worker       string    // the worker that caused it; "" for owner actions
	Message      string    // error text or detail, for people
	// Receipt is set on the event of a delivery attempt (fired, retry_scheduled,
	// failed, skipped, attempt_delivered, attempt_failed written by Decide): what the
	// receiver answered and how long it took. nil on every other event.
	Receipt *Receipt
}

// CreatedEvent opens the history of an alarm created at createdAt. Stores do not write
// it when an alarm is created: the alarm's own row already says when, and that event
// was one of the three rows and eight index entries a once alarm wrote from its create
// to its fire (docs/benchmarks.md, "Write-ahead log per fire"). WithCreated puts it
// back when the history is read. It concerns the first occurrence: a once alarm's fireAt (zero for
// a series, whose first occurrence the row no longer keeps). Its ID is 0, before every
// stored event's.
func CreatedEvent(alarmID string, createdAt, fireAt time.Time) Event {
	return Event{AlarmID: alarmID, Type: EventCreated, At: createdAt, ScheduledFor: fireAt}
}

// WithCreated is an alarm's history as the API shows it: stored, the alarm's events
// after its creation, oldest first, at most limit; returned, created first, then those,
// at most limit in all (limit <= 0: no limit). A history whose first stored event is a
// created event (written by a version that stored them) is returned as it is.
func WithCreated(stored []Event, created Event, limit int) []Event {
	if len(stored) > 0 && stored[0].Type == EventCreated {
		return stored
	}
	if limit <= 0 {
		limit = len(stored) + 1
	}
	out := make([]Event, 0, min(len(stored)+1, limit))
	out = append(out, created)
	return append(out, stored[:min(len(stored), limit-1)]...)
}
