package domain

import (
	"encoding/json"
	"time"
)

// Kind says how an alarm repeats.
type Kind string

const (
	KindOnce Kind = "once" // fires at one instant
	KindCron Kind = "cron" // fires on every occurrence of a schedule
)

// Status is where an alarm is in its lifecycle. See docs/architecture.md for the diagram.
type Status string

const (
	StatusActive    Status = "active"    // waiting for next_fire_at; the only claimable status
	StatusPaused    Status = "paused"    // cron only; resumed by the owner
	StatusFired     Status = "fired"     // once only; terminal
	StatusCancelled Status = "cancelled" // by the owner; terminal
	StatusFailed    Status = "failed"    // once only, deliveries exhausted; terminal
)

// Statuses is every status, in lifecycle order. A store that lists an owner's alarms
// status by status (one index walk each) covers exactly these.
var Statuses = []Status{StatusActive, StatusPaused, StatusFired, StatusCancelled, StatusFailed}

// Terminal reports whether no further transition can leave this status.
func (s Status) Terminal() bool {
	return s == StatusFired || s == StatusCancelled || s == StatusFailed
}

// Delivery is the guarantee an alarm asks for.
type Delivery string

const (
	// AtLeastOnce writes the outcome only after the waker returns; a crash mid-delivery
	// leaves the lease, which expires, and the occurrence is delivered again.
	AtLeastOnce Delivery = "at_least_once"
	// AtMostOnce commits the advance before the wake is sent; a failed or interrupted
	// delivery is recorded and never retried.
	AtMostOnce Delivery = "at_most_once"
)

// Alarm is one durable timer. Zero time.Time values mean "unset" (NULL in a store).
type Alarm struct {
	ID    string
	Owner string
	Label string
	Kind  Kind

	FireAt   time.Time // once: the instant asked for
	CronExpr string    // cron: the expression as given
	Timezone string    // cron: IANA zone; "UTC" when not given

	NextFireAt   time.Time // when the next attempt is due: the claim key
	ScheduledFor time.Time // the occurrence current attempts belong to; retries do not move it

	ConversationID string
	WakeMessage    string
	Payload        json.RawMessage // stored and echoed byte-for-byte
	// Endpoint names the owner's endpoint its wakes go to; "" for the server's --wake-url.
	Endpoint string

	Status         Status
	Delivery       Delivery
	IdempotencyKey string
	MaxFailures    int
	FailureCount   int
	LastError      string

	ClaimedBy string    // the worker holding the lease; "" when unclaimed
	ClaimedAt time.Time // when that lease was taken; zero when unclaimed

	CreatedAt   time.Time
	UpdatedAt   time.Time
	LastFiredAt time.Time

	// Series holds a cron alarm's options beyond its expression (misfire policy, bounds,
	// breaker, jitter); the zero value is a plain series. Always zero for a once alarm.
	Series Series
	// FireCount is how many occurrences of the series were delivered (max_fires counts
	// against it); SkipStreak how many occurrences in a row were given up after their
	// deliveries were exhausted (the breaker's count; a delivery resets it).
	FireCount  int
	SkipStreak int
	// PausedReason says why a paused series is paused: the owner's note, the breaker's
	// count or a schedule that no longer parses. PausedUntil, when set, is when a paused
	// series resumes by itself. Both are empty unless the status is paused.
	PausedReason string
	PausedUntil  time.Time

	// Tags are the owner's key/value pairs to find the alarm by (domain/tags.go); nil
	// when it has none. The owner changes them with an update; nothing else does.
	Tags map[string]string
	// TraceParent and TraceState are the W3C trace context the alarm was created in
	// (trace.go): a version-00 traceparent and its tracestate, "" when none. Every wake
	// carries a child of it. Set at creation only.
	TraceParent string
	TraceState  string
	// Debounce, on an alarm NewAlarm built from a create with OnDuplicateReplace, asks
	// CreateBatch to replace the alarm of its key (debounce.go); nil otherwise, and
	// always nil on an alarm a store returns.
	Debounce *Debounce
}

// Times are a's instants, for a store to bring each to its precision before it keeps
// them. The series' own times are not among them: stores keep those to the nanosecond.
func (a *Alarm) Times() []*time.Time {
	return []*time.Time{&a.FireAt, &a.NextFireAt, &a.ScheduledFor, &a.ClaimedAt, &a.CreatedAt, &a.UpdatedAt,
		&a.LastFiredAt, &a.PausedUntil}
}

// Claimed reports whether some worker holds (or held, if expired) a lease on the alarm.
func (a Alarm) Claimed() bool { return a.ClaimedBy != "" }

// Fence is the lease a worker presents when it applies an outcome. A store applies a
// fenced transition only while the row still carries exactly this lease.
func (a Alarm) Fence() Fence { return Fence{Worker: a.ClaimedBy, ClaimedAt: a.ClaimedAt} }

// OccurrenceKey is "<alarm id>/<scheduled_for in RFC 3339 UTC>": the same for every
// retry of one occurrence, on every node, so receivers can dedupe on it.
func OccurrenceKey(alarmID string, scheduledFor time.Time) string {
	return alarmID + "/" + scheduledFor.UTC().Format(time.RFC3339)
}

// OccurrenceKey of the alarm's current occurrence. A backfill's occurrences are its
// series' own, and carry the series' keys.
func (a Alarm) OccurrenceKey() string { return OccurrenceKey(a.SeriesID(), a.ScheduledFor) }

// SeriesID is the id wakes carry: the alarm's own, or for a backfill its series'.
func (a Alarm) SeriesID() string {
	if a.Series.BackfillOf != "" {
		return a.Series.BackfillOf
	}
	return a.ID
}

// Attempt is the 1-based number of the delivery about to be made for the current occurrence.
func (a Alarm) Attempt() int { return a.FailureCount + 1 }
