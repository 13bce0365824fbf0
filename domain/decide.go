package domain

import (
	"strings"
	"time"
)

// Outcome is what a delivery attempt came to.
type Outcome struct {
	Delivered bool
	Error     string // why it failed, for last_error; empty when Delivered
}

// Delivered is the outcome of an acknowledged wake.
func Delivered() Outcome { return Outcome{Delivered: true} }

// DeliveryFailed is the outcome of a wake that was refused, timed out or never sent.
func DeliveryFailed(msg string) Outcome {
	if msg == "" {
		msg = "delivery failed"
	}
	return Outcome{Error: msg}
}

// Policy holds the tunables Decide needs.
type Policy struct {
	Backoff Backoff
}

// Firing is one delivery attempt of one claimed alarm, from claim to outcome.
type Firing struct {
	Alarm Alarm // as claimed: the lease it carries fences every transition
	// Advance is set for at-most-once alarms: the transition that must be committed
	// before the wake is sent. If the store reports it stale, the wake must not be sent.
	Advance *Transition
}

// Begin starts a firing. For an at-most-once alarm it computes the advance (once:
// fired; cron: the next occurrence) that keeps the lease until the outcome is recorded.
func Begin(a Alarm, now time.Time) Firing {
	f := Firing{Alarm: a}
	if a.Delivery == AtMostOnce {
		adv := advance(a, now)
		adv.Kind = TransitionAdvanced // the same move, committed before the wake is sent
		adv.KeepLease = true
		if adv.Status != StatusPaused { // a paused series keeps the reason it was paused
			adv.LastError = inDoubt(a, now)
		}
		f.Advance = &adv
	}
	return f
}

// InDoubtPrefix starts the last_error an at-most-once advance writes. The recorded
// outcome replaces it within the delivery timeout; if it stays, the worker stopped
// between sending the wake and recording what came of it, and nobody knows whether the
// wake arrived. Writing it with the advance, in the same statement, is what makes that
// loss visible on the alarm without any later sweep.
const InDoubtPrefix = "outcome unknown: "

func inDoubt(a Alarm, now time.Time) string {
	return InDoubtPrefix + "at-most-once wake of " + a.ScheduledFor.UTC().Format(time.RFC3339) +
		" dispatched by worker " + a.ClaimedBy + " at " + now.UTC().Format(time.RFC3339) +
		" and never recorded as delivered or failed; it may not have arrived"
}

// Decide turns the outcome of a firing into the transition to apply, fenced on the
// firing's lease.
//
// At-least-once: delivered → fired (once) or next occurrence (cron, failure count
// reset); failed with failures left → retry at now+backoff; exhausted → failed (once)
// or skip-and-advance (cron, count reset, last_error kept). max_failures is the number
// of failed deliveries after which a once alarm is failed.
//
// At-most-once (the advance is already committed): the outcome is recorded and the
// lease released; a failure is never retried (once: failed; cron: last_error).
func Decide(f Firing, o Outcome, now time.Time, p Policy) Transition {
	if f.Advance != nil {
		return record(f, o, now)
	}
	a := f.Alarm
	if o.Delivered {
		return advance(a, now)
	}
	failures := a.FailureCount + 1
	if failures < a.MaxFailures {
		t := base(TransitionRetry, a, now)
		t.FailureCount = failures
		t.LastError = o.Error
		t.NextFireAt = now.UTC().Add(p.Backoff.Delay(failures - 1))
		t.event(EventRetryScheduled, a, now, o.Error)
		return t
	}
	if a.Kind == KindOnce {
		t := base(TransitionFailed, a, now)
		t.Status = StatusFailed
		t.FailureCount = failures
		t.LastError = o.Error
		t.event(EventFailed, a, now, o.Error)
		return t
	}
	// last_error is set before moving on so that a series paused because its schedule
	// no longer parses keeps that reason rather than the delivery error.
	t := base(TransitionSkipped, a, now)
	t.LastError = o.Error
	t = moveToNextOccurrence(t, a, now)
	t.event(EventSkipped, a, now, o.Error)
	return t
}

// advance is the success path, and the at-most-once advance: a once alarm is fired, a
// cron alarm moves to its next occurrence strictly after now (occurrences missed while
// nothing ran collapse into this one fire).
func advance(a Alarm, now time.Time) Transition {
	var t Transition
	if a.Kind == KindOnce {
		t = base(TransitionFired, a, now)
		t.Status = StatusFired
	} else {
		t = moveToNextOccurrence(base(TransitionRescheduled, a, now), a, now)
	}
	t.LastFiredAt = now.UTC()
	t.event(EventFired, a, now, "")
	return t
}

// moveToNextOccurrence points a cron transition at the next occurrence after now with a
// fresh failure count. A series with no further occurrence retires as fired; one whose
// stored expression no longer parses is paused with the reason, rather than lost.
func moveToNextOccurrence(t Transition, a Alarm, now time.Time) Transition {
	t.FailureCount = 0
	sched, err := ParseSchedule(a.CronExpr, a.Timezone)
	if err != nil {
		t.Status = StatusPaused
		t.LastError = "schedule no longer valid: " + err.Error()
		return t
	}
	next, ok := sched.Next(now)
	if !ok {
		t.Status = StatusFired
		return t
	}
	t.NextFireAt, t.ScheduledFor = next, next
	return t
}

// record is the at-most-once outcome, written after the advance. It starts from the
// advanced row and releases the lease; the event names the occurrence that was sent.
func record(f Firing, o Outcome, now time.Time) Transition {
	a := f.Alarm
	t := *f.Advance
	t.Kind = TransitionRecorded
	t.Events = nil
	t.KeepLease = false
	t.UpdatedAt = now.UTC()
	if o.Delivered {
		if strings.HasPrefix(t.LastError, InDoubtPrefix) {
			t.LastError = a.LastError // delivered: the in-doubt note goes, the history stays
		}
		t.event(EventAttemptDelivered, a, now, "")
		return t
	}
	t.LastError = o.Error
	if a.Kind == KindOnce {
		t.Status = StatusFailed
		t.FailureCount = 1
	}
	t.event(EventAttemptFailed, a, now, o.Error+" (at-most-once: not retried)")
	return t
}
