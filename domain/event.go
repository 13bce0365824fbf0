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
	EventRetried          EventType = "retried"  // an admin made a failed alarm due again
	EventMissed           EventType = "missed"   // cron: a gap of occurrences dropped (Message: how many, first to last)
	EventUpdated          EventType = "updated"  // the owner changed the definition (Message: which fields)
	EventDeferred         EventType = "deferred" // at-most-once: a wake held back after its advance; the advance undone
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
}
