package domain

import "time"

// Admin actions are owner actions taken by an operator on any owner's alarm. Like owner
// actions they are unfenced and release any lease. Their events name who acted (the
// admin token's id) in Message, so an alarm's history says who changed it.

// Retry makes a failed alarm active and due now, its failure count and last error reset:
// its occurrence is delivered again, with the same occurrence key (the receiver never
// acknowledged it). Only failed alarms can be retried; a cron series never fails (it
// skips to its next occurrence), so in practice these are once alarms.
func Retry(a Alarm, now time.Time, by string) (Transition, error) {
	if a.Status != StatusFailed {
		return Transition{}, invalidState("alarm is %s; only failed alarms can be retried", a.Status)
	}
	t := owned(TransitionRetried, a, now)
	t.Status = StatusActive
	t.NextFireAt = now.UTC()
	t.FailureCount = 0
	t.LastError = ""
	t.ownerEvent(EventRetried, a, now)
	t.by(by)
	return t, nil
}

// AdminCancel is Cancel recording who cancelled.
func AdminCancel(a Alarm, now time.Time, by string) (Transition, bool) {
	t, changed := Cancel(a, now)
	if changed {
		t.by(by)
	}
	return t, changed
}

// by names the actor in every event of t.
func (t *Transition) by(actor string) {
	for i := range t.Events {
		t.Events[i].Message = "by " + actor
	}
}

// AdminPause is Pause recording who paused.
func AdminPause(a Alarm, now time.Time, by string) (Transition, bool, error) {
	t, changed, err := Pause(a, now)
	if changed {
		t.by(by)
	}
	return t, changed, err
}

// AdminResume is Resume recording who resumed.
func AdminResume(a Alarm, now time.Time, by string) (Transition, bool, error) {
	t, changed, err := Resume(a, now)
	if changed {
		t.by(by)
	}
	return t, changed, err
}

// AdminTrigger is Trigger recording who triggered. An operator may trigger a failure
// notice: it is sent as it was made.
func AdminTrigger(a Alarm, now time.Time, by string) (Transition, error) {
	t, err := trigger(a, now)
	if err == nil {
		t.by(by)
	}
	return t, err
}
