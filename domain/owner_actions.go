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
	t.PausedReason, t.PausedUntil = "", time.Time{} // a pause's end must not outlive the pause
	t.ownerEvent(EventCancelled, a, now)
	return t, true
}

// Pause stops a cron series from firing until it is resumed.
func Pause(a Alarm, now time.Time) (Transition, bool, error) {
	return PauseWith(a, now, PauseSpec{})
}

// PauseSpec is what an owner may say when pausing: a note (shown as the paused reason)
// and when the series resumes by itself. Both optional.
type PauseSpec struct {
	Until time.Time
	Note  string
}

// PauseWith stops a cron series, with a note and an end. Pausing a paused series again
// with a different note or end changes them (the series stays paused); with the same,
// nothing changes.
func PauseWith(a Alarm, now time.Time, s PauseSpec) (Transition, bool, error) {
	if a.Kind != KindCron {
		return Transition{}, false, invalidState("only cron alarms can be paused; cancel a once alarm instead")
	}
	if err := checkText("note", s.Note, MaxPauseNoteLen); err != nil {
		return Transition{}, false, err
	}
	if !s.Until.IsZero() && !s.Until.After(now) {
		return Transition{}, false, invalid("until", "must be in the future (now is %s)", now.UTC().Format(time.RFC3339))
	}
	if !s.Until.IsZero() && s.Until.Sub(now) > MaxDelay {
		return Transition{}, false, invalid("until", "is more than ten years away")
	}
	until := s.Until.UTC()
	switch a.Status {
	case StatusPaused:
		if s.Note == a.PausedReason && until.Equal(a.PausedUntil) || s == (PauseSpec{}) {
			return Transition{}, false, nil
		}
	case StatusActive:
	default:
		return Transition{}, false, invalidState("alarm is %s", a.Status)
	}
	t := owned(TransitionPaused, a, now)
	t.Status = StatusPaused
	t.PausedReason, t.PausedUntil = s.Note, until
	t.ownerEvent(EventPaused, a, now)
	t.Events[len(t.Events)-1].Message = pauseMessage(s.Note, until)
	return t, true, nil
}

func pauseMessage(note string, until time.Time) string {
	msg := note
	if !until.IsZero() {
		if msg != "" {
			msg += "; "
		}
		msg += "until " + until.Format(time.RFC3339)
	}
	return msg
}

// Resume restarts a paused series at its next occurrence after now, with a fresh
// failure count and skip streak. Occurrences that fell while it was paused are not
// delivered (a pause is asked for; they are not recorded as missed).
func Resume(a Alarm, now time.Time) (Transition, bool, error) {
	switch a.Status {
	case StatusActive:
		return Transition{}, false, nil
	case StatusPaused:
	default:
		return Transition{}, false, invalidState("alarm is %s", a.Status)
	}
	t, err := resumed(a, now)
	if err != nil {
		return Transition{}, false, err
	}
	t.ownerEvent(EventResumed, a, now)
	return t, true, nil
}

func resumed(a Alarm, now time.Time) (Transition, error) {
	t := owned(TransitionResumed, a, now)
	t.Status = StatusActive
	t.FailureCount, t.SkipStreak = 0, 0
	t.PausedReason, t.PausedUntil = "", time.Time{}
	sched, err := ParseSchedule(a.CronExpr, a.Timezone)
	if err != nil {
		return Transition{}, invalidState("schedule no longer valid: %v", err)
	}
	next, ok := a.firstFrom(sched, now)
	if !ok {
		return Transition{}, invalidState("schedule %q has no future occurrence%s", a.CronExpr, endNote(a.Series.EndAt))
	}
	t.NextFireAt, t.ScheduledFor = a.dueAt(next), next
	return t, nil
}

// ResumeDue ends a pause whose until has come (dispatchers find such alarms with
// ports.ClaimStore.DuePauses). It always changes a due pause, so the alarm is not found
// again: a series with no occurrence left ends as fired, one whose expression no longer
// parses stays paused without an end, the reason saying why. Anything else (resumed by
// someone meanwhile, paused again with a later end) changes nothing.
func ResumeDue(a Alarm, now time.Time) (Transition, bool) {
	if a.Status != StatusPaused || a.PausedUntil.IsZero() || a.PausedUntil.After(now) {
		return Transition{}, false
	}
	msg := "pause ended (until " + a.PausedUntil.Format(time.RFC3339) + ")"
	var t Transition
	sched, err := ParseSchedule(a.CronExpr, a.Timezone)
	if err != nil {
		t = pauseInvalid(owned(TransitionPaused, a, now), err)
		msg += "; not resumed: " + t.PausedReason
	} else if _, ok := a.firstFrom(sched, now); !ok {
		t = owned(TransitionFired, a, now)
		t.Status = StatusFired
		t.PausedReason, t.PausedUntil = "", time.Time{}
		msg += "; the series has no occurrence left"
	} else {
		t, _ = resumed(a, now) // cannot fail: the schedule parsed and has an occurrence
	}
	t.ownerEvent(EventResumed, a, now)
	t.Events[len(t.Events)-1].Message = msg
	return t, true
}

// SkipNext drops an active series' next occurrence (the one it is at, retries
// included) and moves it to the one after; recorded as a skipped event. A series with
// no occurrence after it ends as fired.
func SkipNext(a Alarm, now time.Time) (Transition, error) {
	if a.Kind != KindCron {
		return Transition{}, invalidState("only cron alarms have a next occurrence to skip; cancel a once alarm instead")
	}
	if a.Status != StatusActive {
		return Transition{}, invalidState("alarm is %s; only an active series can skip its next occurrence", a.Status)
	}
	t := owned(TransitionSkippedNext, a, now)
	t.Events = append(t.Events, Event{AlarmID: a.ID, Type: EventSkipped, At: now.UTC(), ScheduledFor: a.ScheduledFor, Message: "skipped by the owner"})
	t = moveToNextOccurrence(t, a, now, Policy{}, false, nil)
	if t.Status == StatusPaused {
		return Transition{}, invalidState("%s", t.LastError)
	}
	return t, nil
}

// Trigger makes an active alarm due now. A cron alarm gets a new occurrence at now (its
// regular schedule continues after it); a once alarm fires its one occurrence early.
// An owner cannot trigger a failure notice (refuseNotice): it would send it again
// outside its backoff.
func Trigger(a Alarm, now time.Time) (Transition, error) {
	if err := refuseNotice(a, "trigger"); err != nil {
		return Transition{}, err
	}
	return trigger(a, now)
}

func trigger(a Alarm, now time.Time) (Transition, error) {
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

func endNote(end time.Time) string {
	if end.IsZero() {
		return ""
	}
	return " before its end_at " + end.Format(time.RFC3339)
}
