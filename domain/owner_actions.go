package domain

import "time"

// Owner actions return the transition to apply and whether anything changes. They are
// unfenced: a store applies them inside its own read-modify-write of the row, and they
// release any lease, so a worker still delivering the alarm finds its own outcome stale.

// Cancel stops an alarm for good. Cancelling a terminal alarm changes nothing.
func Cancel(a Alarm, now time.Time) (Transition, bool) {
	if a.Status.Terminal() {
		return Transition{}, false
	}
	t := owned(TransitionCancelled, a, now)
	t.Status = StatusCancelled
	t.ownerEvent(EventCancelled, a, now)
	return t, true
}

// Pause stops a cron series from firing until it is resumed.
func Pause(a Alarm, now time.Time) (Transition, bool, error) {
	if a.Kind != KindCron {
		return Transition{}, false, invalidState("only cron alarms can be paused; cancel a once alarm instead")
	}
	switch a.Status {
	case StatusPaused:
		return Transition{}, false, nil
	case StatusActive:
	default:
		return Transition{}, false, invalidState("alarm is %s", a.Status)
	}
	t := owned(TransitionPaused, a, now)
	t.Status = StatusPaused
	t.ownerEvent(EventPaused, a, now)
	return t, true, nil
}

// Resume restarts a paused series at its next occurrence after now, with a fresh
// failure count. Occurrences that fell while it was paused are not delivered.
func Resume(a Alarm, now time.Time) (Transition, bool, error) {
	switch a.Status {
	case StatusActive:
		return Transition{}, false, nil
	case StatusPaused:
	default:
		return Transition{}, false, invalidState("alarm is %s", a.Status)
	}
	t := owned(TransitionResumed, a, now)
	t.Status = StatusActive
	t = moveToNextOccurrence(t, a, now)
	switch t.Status {
	case StatusPaused: // the stored expression no longer parses; LastError says why
		return Transition{}, false, invalidState("%s", t.LastError)
	case StatusFired:
		return Transition{}, false, invalidState("schedule %q has no future occurrence", a.CronExpr)
	}
	t.ownerEvent(EventResumed, a, now)
	return t, true, nil
}

// Trigger makes an active alarm due now. A cron alarm gets a new occurrence at now (its
// regular schedule continues after it); a once alarm fires its one occurrence early.
func Trigger(a Alarm, now time.Time) (Transition, error) {
	if a.Status != StatusActive {
		return Transition{}, invalidState("alarm is %s; only active alarms can be triggered", a.Status)
	}
	t := owned(TransitionTriggered, a, now)
	t.NextFireAt = now.UTC()
	if a.Kind == KindCron {
		t.ScheduledFor = now.UTC()
		t.FailureCount = 0
	}
	t.ownerEvent(EventTriggered, a, now)
	return t, nil
}

func owned(kind TransitionKind, a Alarm, now time.Time) Transition {
	t := base(kind, a, now)
	t.Fence = Fence{}
	return t
}

// ownerEvent records an owner action. Unlike a worker's event it names no worker (the
// lease it releases is not the actor) and no delivery attempt; it concerns the
// occurrence the alarm is at after the action (for trigger and resume, the new one).
func (t *Transition) ownerEvent(typ EventType, a Alarm, now time.Time) {
	t.Events = append(t.Events, Event{
		AlarmID:      a.ID,
		Type:         typ,
		At:           now.UTC(),
		ScheduledFor: t.ScheduledFor,
	})
}
