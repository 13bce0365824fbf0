package domain

import "time"

// Fence identifies one lease. A zero Fence means "not fenced": the transition comes
// from an owner action applied inside the store's own read-modify-write.
type Fence struct {
	Worker    string
	ClaimedAt time.Time
}

// IsZero reports whether the fence is empty.
func (f Fence) IsZero() bool { return f.Worker == "" && f.ClaimedAt.IsZero() }

// TransitionKind names what a transition does; for logs, metrics and tests.
type TransitionKind string

const (
	TransitionFired       TransitionKind = "fired"       // once delivered: status fired
	TransitionRescheduled TransitionKind = "rescheduled" // cron delivered: next occurrence
	TransitionRetry       TransitionKind = "retry"       // failed; next attempt at now+backoff
	TransitionFailed      TransitionKind = "failed"      // once exhausted
	TransitionSkipped     TransitionKind = "skipped"     // cron exhausted: skip-and-advance
	TransitionAdvanced    TransitionKind = "advanced"    // at-most-once: advance committed before delivery
	TransitionRecorded    TransitionKind = "recorded"    // at-most-once: outcome recorded after delivery
	TransitionCancelled   TransitionKind = "cancelled"
	TransitionPaused      TransitionKind = "paused"
	TransitionResumed     TransitionKind = "resumed"
	TransitionTriggered   TransitionKind = "triggered"
	TransitionRetried     TransitionKind = "retried"
	TransitionMissed      TransitionKind = "missed"       // misfire policy: claimed occurrence dropped, no wake
	TransitionSkippedNext TransitionKind = "skipped_next" // the owner dropped the next occurrence
	TransitionUpdated     TransitionKind = "updated"      // the owner changed the series' definition
	TransitionDeferred    TransitionKind = "deferred"     // not sent (endpoint busy or breaker open); due again later
	TransitionExcluded    TransitionKind = "excluded"     // claimed occurrence on a day its calendars exclude, no wake
	TransitionRedelivered TransitionKind = "redelivered"  // the owner sent a past occurrence again; only an event
)

// Transition is the complete new value of an alarm's mutable columns plus the events
// that explain the change. Stores apply it as one UPDATE of exactly these columns and
// one INSERT of Events, never reading or merging: the domain already decided.
//
// When Fence is set, the UPDATE must carry "claimed_by = Fence.Worker AND claimed_at =
// Fence.ClaimedAt"; if no row matches, the transition is stale: nothing is written,
// events included, and the store reports the alarm id.
type Transition struct {
	Kind    TransitionKind
	AlarmID string
	Fence   Fence

	Status       Status
	NextFireAt   time.Time
	ScheduledFor time.Time
	FailureCount int
	LastError    string
	LastFiredAt  time.Time
	FireCount    int
	SkipStreak   int
	PausedReason string
	PausedUntil  time.Time
	// Notice, set when an alarm naming an endpoint fails for good or a series pauses
	// itself, is the failure notice to create with the transition: a store inserts it
	// (as CreateBatch would, with its created event) in the same transaction, and only when
	// the transition applies, so a notice is never lost and never made twice.
	Notice *Alarm
	// Define, set only by Update, is the alarm's new definition: a store writes it with
	// the transition, in the same transaction. Only AlarmStore.Mutate (and AdminMutate)
	// ever carry one; Apply's transitions never do.
	Define *Definition
	// KeepLease leaves claimed_by/claimed_at as they are (the at-most-once advance keeps
	// its lease until the outcome is recorded). Otherwise both are cleared.
	KeepLease bool
	UpdatedAt time.Time

	Events []Event
}

// ApplyTo returns a with the transition's values, as a store would leave the row. It
// only computes; writing the transition is ports.ClaimStore.Apply's.
func (t Transition) ApplyTo(a Alarm) Alarm {
	a.Status = t.Status
	a.NextFireAt = t.NextFireAt
	a.ScheduledFor = t.ScheduledFor
	a.FailureCount = t.FailureCount
	a.LastError = t.LastError
	a.LastFiredAt = t.LastFiredAt
	a.FireCount = t.FireCount
	a.SkipStreak = t.SkipStreak
	a.PausedReason = t.PausedReason
	a.PausedUntil = t.PausedUntil
	if t.Define != nil {
		a.Label, a.CronExpr, a.Timezone = t.Define.Label, t.Define.CronExpr, t.Define.Timezone
		a.WakeMessage, a.Payload, a.MaxFailures = t.Define.WakeMessage, t.Define.Payload, t.Define.MaxFailures
		a.Series, a.Tags = t.Define.Series, t.Define.Tags
	}
	a.UpdatedAt = t.UpdatedAt
	if !t.KeepLease {
		a.ClaimedBy, a.ClaimedAt = "", time.Time{}
	}
	return a
}

// base starts a transition that keeps every mutable column of a as it is.
func base(kind TransitionKind, a Alarm, now time.Time) Transition {
	return Transition{
		Kind:         kind,
		AlarmID:      a.ID,
		Fence:        a.Fence(),
		Status:       a.Status,
		NextFireAt:   a.NextFireAt,
		ScheduledFor: a.ScheduledFor,
		FailureCount: a.FailureCount,
		LastError:    a.LastError,
		LastFiredAt:  a.LastFiredAt,
		FireCount:    a.FireCount,
		SkipStreak:   a.SkipStreak,
		PausedReason: a.PausedReason,
		PausedUntil:  a.PausedUntil,
		UpdatedAt:    now.UTC(),
	}
}

func (t *Transition) event(typ EventType, a Alarm, now time.Time, msg string) {
	t.Events = append(t.Events, Event{
		AlarmID:      a.ID,
		Type:         typ,
		At:           now.UTC(),
		Attempt:      a.Attempt(),
		ScheduledFor: a.ScheduledFor,
		Worker:       a.ClaimedBy,
		Message:      msg,
	})
}
