package domain

import (
	"fmt"
	"strings"
	"time"
)

// Outcome is what a delivery attempt came to.
type Outcome struct {
	Delivered bool
	Error     string // why it failed, for last_error; empty when Delivered
	// RetryAfter is the wait the receiver asked for (Retry-After); the retry is due
	// then instead of after the backoff, never later than the backoff cap. 0: none.
	RetryAfter time.Duration
	// Gone: the receiver will never take this occurrence (410 Gone). It is not retried:
	// a once alarm fails, a series moves on as after its last failed delivery.
	Gone bool
	// Refused: the node refused to send the wake, its address being one the egress
	// policy forbids (EgressError); nothing reached any receiver. Not retried either:
	// every retry would be refused alike until the operator allows the range.
	Refused bool
	// Defer: the wake was not sent (its endpoint had no room, or its breaker was open)
	// and the alarm is due again after this long. Not an attempt: nothing is counted,
	// no retry is used. Error says why, for the log.
	Defer time.Duration
	// Receipt is what the attempt came to at the receiver (the attempt log); Decide
	// puts it on the attempt's event. nil when unknown; ignored for a Defer.
	Receipt *Receipt
}

// Deferred is the outcome of a wake held back for d (see Outcome.Defer).
func Deferred(d time.Duration, why string) Outcome {
	return Outcome{Defer: d, Error: PrintableText(why, MaxFailureText)}
}

// Delivered is the outcome of an acknowledged wake.
func Delivered() Outcome { return Outcome{Delivered: true} }

// DeliveryFailed is the outcome of a wake that was refused, timed out or never sent.
// msg is recorded as printable text of at most MaxFailureText bytes (PrintableText).
func DeliveryFailed(msg string) Outcome {
	if msg == "" {
		msg = "delivery failed"
	}
	return Outcome{Error: PrintableText(msg, MaxFailureText)}
}

// Policy holds the tunables Begin and Decide need.
type Policy struct {
	Backoff Backoff
	// MisfireThreshold is how late an occurrence may fall due before it counts as
	// missed (see Misfire); 0 means DefaultMisfireThreshold.
	MisfireThreshold time.Duration
}

// Firing is one delivery attempt of one claimed alarm, from claim to outcome.
type Firing struct {
	Alarm Alarm // as claimed: the lease it carries fences every transition
	// Advance is set for at-most-once alarms: the transition that must be committed
	// before the wake is sent. If the store reports it stale, the wake must not be sent.
	Advance *Transition
	// Skip is set when the claimed occurrence must not be delivered: the series' misfire
	// policy dropped it (skip), or dropped it with older missed ones to catch up from a
	// later occurrence (catch_up). It is applied instead of a wake, and the series is
	// due again at its next occurrence. No wake is sent and no attempt counted.
	Skip *Transition
	// windowWake: the claimed occurrence was missed and its series' policy is fire_once,
	// so this is the missed window's one wake, and moving on drops the rest of the window.
	// A fire_once series otherwise moves to its very next occurrence: if that one was
	// missed too (a node stopped between a wake and its outcome), it is claimed next and
	// becomes the window's wake.
	windowWake bool
	// excluding: the series' calendars as they stood at the claim (BeginExcluding); the
	// next occurrence is computed past the days they exclude.
	excluding exclusions
}

// Begin starts a firing. A cron alarm whose claimed occurrence was missed goes by its
// misfire policy first (Firing.Skip). For an at-most-once alarm it computes the advance
// (once: fired; cron: the next occurrence) that keeps the lease until the outcome is
// recorded.
func Begin(a Alarm, now time.Time, p Policy) Firing {
	return BeginExcluding(a, nil, now, p)
}

// BeginExcluding is Begin for a series whose owner's calendars are cals (those its
// exclude_calendars name are used; the rest are ignored): a claimed first attempt on a
// day they exclude is dropped (Firing.Skip, one excluded event for the run), and every
// next occurrence this firing computes avoids them.
func BeginExcluding(a Alarm, cals []Calendar, now time.Time, p Policy) Firing {
	f := Firing{Alarm: a, windowWake: isWindowWake(a, now, p), excluding: seriesExclusions(a.Series, cals)}
	// Each skip is copied to the heap only when there is one (&skip of the returned
	// value would allocate it for every firing).
	if skip, ok := excludedAtClaim(a, f.excluding, now); ok {
		f.Skip = heapCopy(skip)
		return f
	}
	if skip, ok := misfireAtClaim(a, now, p); ok {
		f.Skip = heapCopy(skip)
		return f
	}
	if a.Delivery == AtMostOnce {
		adv := advance(f, now, p)
		adv.Kind = TransitionAdvanced // the same move, committed before the wake is sent
		adv.KeepLease = true
		if adv.Status != StatusPaused { // a paused series keeps the reason it was paused
			adv.LastError = inDoubt(a, now)
		}
		f.Advance = &adv
	}
	return f
}

// heapCopy is a pointer to a copy of t.
func heapCopy(t Transition) *Transition { return &t }

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
	t := decide(f, o, now, p)
	if o.Receipt != nil && o.Defer == 0 && len(t.Events) > 0 {
		// Every path of an attempt writes its event first (fired, retry_scheduled,
		// failed, skipped, attempt_delivered, attempt_failed); missed, excluded and
		// paused events follow it and are not attempts.
		r := *o.Receipt
		t.Events[0].Receipt = &r
	}
	t.attachNotice(f.Alarm, now)
	return t
}

func decide(f Firing, o Outcome, now time.Time, p Policy) Transition {
	a := f.Alarm
	if o.Defer > 0 {
		return deferred(f, o, now)
	}
	if f.Advance != nil {
		return record(f, o, now)
	}
	if o.Delivered {
		return advance(f, now, p)
	}
	failures := a.FailureCount + 1
	if failures < a.MaxFailures && !o.Gone && !o.Refused {
		t := base(TransitionRetry, a, now)
		t.FailureCount = failures
		t.LastError = o.Error
		delay := p.Backoff.Delay(failures - 1)
		if o.RetryAfter > 0 {
			delay = min(o.RetryAfter, p.Backoff.Cap) // the receiver's word, within the cap
		}
		t.NextFireAt = now.UTC().Add(delay)
		t.event(EventRetryScheduled, a, now, o.Error)
		return t
	}
	switch {
	case o.Gone:
		o.Error += " (410 Gone: not retried)"
	case o.Refused:
		o.Error += " (not retried)"
	}
	if a.Kind == KindOnce {
		t := base(TransitionFailed, a, now)
		t.Status = StatusFailed
		t.FailureCount = failures
		t.LastError = o.Error
		t.event(EventFailed, a, now, o.Error)
		return t
	}
	t := base(TransitionSkipped, a, now)
	t.LastError = o.Error
	t.event(EventSkipped, a, now, o.Error)
	t = moveToNextOccurrence(t, a, now, p, f.windowWake, f.excluding)
	t.countSkip(a, now, o.Error)
	return t
}

// countSkip adds a given-up occurrence to the series' streak and trips the breaker:
// once max_consecutive_skips occurrences in a row were given up, the series pauses
// itself with the reason, so a receiver that is gone stops costing a retry chain per
// occurrence until someone looks. A delivery resets the streak (advance).
func (t *Transition) countSkip(a Alarm, now time.Time, lastErr string) {
	t.SkipStreak = a.SkipStreak + 1
	limit := a.Series.MaxConsecutiveSkips
	if limit == 0 || t.SkipStreak < limit || t.Status != StatusActive {
		return
	}
	t.Status = StatusPaused
	t.PausedReason = reason(fmt.Sprintf("paused by the series breaker: %d occurrences in a row were not delivered (max_consecutive_skips %d); last error: %s",
		t.SkipStreak, limit, lastErr))
	t.PausedUntil = time.Time{}
	t.Events = append(t.Events, Event{AlarmID: a.ID, Type: EventPaused, At: now.UTC(), ScheduledFor: t.ScheduledFor, Message: t.PausedReason})
}

// advance is the success path, and the at-most-once advance: a once alarm is fired, a
// cron alarm counts the fire and moves to its next occurrence (missed ones go by its
// misfire policy), or ends as fired after its last.
func advance(f Firing, now time.Time, p Policy) Transition {
	a := f.Alarm
	var t Transition
	if a.Kind == KindOnce {
		t = base(TransitionFired, a, now)
		t.Status = StatusFired
		t.event(EventFired, a, now, "")
	} else {
		t = base(TransitionRescheduled, a, now)
		t.FireCount = a.FireCount + 1
		t.SkipStreak = 0
		t.event(EventFired, a, now, "")
		if a.Series.MaxFires > 0 && t.FireCount >= a.Series.MaxFires {
			t.Status = StatusFired // the last of max_fires
			t.FailureCount = 0
		} else {
			t = moveToNextOccurrence(t, a, now, p, f.windowWake, f.excluding)
		}
	}
	t.LastFiredAt = now.UTC()
	return t
}

// moveToNextOccurrence points a cron transition at the series' occurrence after its
// current one with a fresh failure count; missed occurrences go by the misfire policy,
// each gap recorded as one missed event (fire_once drops them only after the window's
// wake: windowWake), and so do the days the series' calendars exclude (xs), each run
// one excluded event. A series with no further occurrence (past end_at, or none at
// all) ends as fired; one whose stored expression no longer parses is paused with the
// reason, rather than lost.
func moveToNextOccurrence(t Transition, a Alarm, now time.Time, p Policy, windowWake bool, xs exclusions) Transition {
	t.FailureCount = 0
	sched, err := ParseSchedule(a.CronExpr, a.Timezone)
	if err != nil {
		return pauseInvalid(t, err)
	}
	next, ok := a.next(sched, a.ScheduledFor)
	if ok && (a.Series.misfire() != MisfireFireOnce || windowWake) {
		pl := a.planFrom(sched, next, now, p)
		t.missedEvent(a, pl.dropped, now, "misfire "+string(a.Series.misfire()))
		next, ok = pl.next, pl.ok
	}
	if !ok {
		t.Status = StatusFired
		return t
	}
	t.NextFireAt, t.ScheduledFor = a.dueAt(next), next
	if len(xs) > 0 {
		t.excludeNext(a, sched, next, xs, now)
	}
	return t
}

// pauseInvalid pauses a series whose stored expression no longer parses (a zone
// database that lost a zone, say): last_error and paused_reason say why.
func pauseInvalid(t Transition, err error) Transition {
	t.Status = StatusPaused
	t.LastError = "schedule no longer valid: " + err.Error()
	t.PausedReason, t.PausedUntil = reason(t.LastError), time.Time{}
	return t
}

// isWindowWake reports whether a claimed occurrence is a fire_once series' missed
// window's one wake: a first attempt, missed.
func isWindowWake(a Alarm, now time.Time, p Policy) bool {
	return a.Kind == KindCron && a.FailureCount == 0 && a.Series.misfire() == MisfireFireOnce &&
		a.dueAt(a.ScheduledFor).Before(now.Add(-p.threshold()))
}

// misfireAtClaim applies a skip or catch_up policy to a claimed occurrence that was
// missed: skip moves the series to its first occurrence that is not missed, catch_up to
// the oldest it keeps. fire_once delivers the claimed occurrence (the missed window's
// one wake) and drops the rest when it advances. Only a first attempt can be missed: a
// retry is due when its backoff says, and a triggered occurrence when it was triggered.
func misfireAtClaim(a Alarm, now time.Time, p Policy) (Transition, bool) {
	if a.Kind != KindCron || a.FailureCount > 0 || a.Series.misfire() == MisfireFireOnce {
		return Transition{}, false
	}
	sched, err := ParseSchedule(a.CronExpr, a.Timezone)
	if err != nil {
		return Transition{}, false // Decide pauses it with the reason
	}
	pl := a.planFrom(sched, a.ScheduledFor, now, p)
	if pl.ok && pl.next.Equal(a.ScheduledFor) {
		return Transition{}, false
	}
	t := base(TransitionMissed, a, now)
	t.missedEvent(a, pl.dropped, now, "misfire "+string(a.Series.misfire()))
	if !pl.ok {
		t.Status = StatusFired
		return t, true
	}
	t.NextFireAt, t.ScheduledFor = a.dueAt(pl.next), pl.next
	return t, true
}

// deferred puts a wake that was held back (never sent) back as it was claimed, due
// again after o.Defer, its lease released and nothing counted. For an at-most-once
// alarm it also undoes the advance committed before the wake would have gone: the row
// returns to the occurrence it was at, and an event says so, since the advance's fired
// event is already written.
func deferred(f Firing, o Outcome, now time.Time) Transition {
	t := base(TransitionDeferred, f.Alarm, now)
	t.NextFireAt = now.UTC().Add(o.Defer)
	if f.Advance != nil {
		t.event(EventDeferred, f.Alarm, now, "not sent: "+o.Error+"; the advance is undone")
	}
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
	t.event(EventAttemptFailed, a, now, o.Error+" (at-most-once: not retried)")
	if a.Kind == KindOnce {
		t.Status = StatusFailed
		t.FailureCount = 1
		return t
	}
	t.countSkip(a, now, o.Error) // the occurrence was not delivered: it counts for the breaker
	return t
}
