package domain

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// fxActionAt is when the owner acts on the fixture alarms: after the worker claimed the
// alarm, so every action also has a lease to release.
var fxActionAt = fxNow.Add(time.Minute)

// fxOwnerEvent is the event an owner action records: no worker and no delivery attempt
// (Event's contract), about the occurrence the alarm is at after the action.
func fxOwnerEvent(a Alarm, typ EventType, scheduledFor time.Time) Event {
	return Event{AlarmID: a.ID, Type: typ, At: fxActionAt, ScheduledFor: scheduledFor}
}

// assertOwned checks what every owner action's transition carries: no fence (the store
// applies it inside its own read-modify-write) and the lease released, so a worker still
// delivering the alarm finds its outcome stale.
func assertOwned(t *testing.T, tr Transition, a Alarm, kind TransitionKind) {
	t.Helper()
	if tr.Kind != kind {
		t.Errorf("Kind = %q, want %q", tr.Kind, kind)
	}
	if tr.AlarmID != a.ID {
		t.Errorf("AlarmID = %q, want %q", tr.AlarmID, a.ID)
	}
	if !tr.Fence.IsZero() {
		t.Errorf("Fence = %+v, want zero: owner actions are unfenced", tr.Fence)
	}
	if tr.KeepLease {
		t.Error("KeepLease = true; an owner action must release the lease")
	}
}

func withStatus(s Status) func(Alarm) Alarm {
	return func(a Alarm) Alarm { a.Status = s; return a }
}

func TestCancel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		alarm Alarm
	}{
		{"active once", fxOnce(t)},
		{"once waiting for a retry", withFailures(2, "HTTP 503")(fxOnce(t))},
		{"active cron", fxCron(t)},
		{"paused cron", withStatus(StatusPaused)(fxCron(t))},
		{"once being delivered", fxClaim(fxOnce(t), fxWorker, fxClaimedAt)},
		{"at-most-once cron being delivered", fxClaim(fxCron(t, withDelivery(AtMostOnce)), fxWorker, fxClaimedAt)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.alarm
			tr, changed := Cancel(a, fxActionAt)
			if !changed {
				t.Fatal("changed = false, want the alarm cancelled")
			}
			assertOwned(t, tr, a, TransitionCancelled)
			assertEvents(t, tr.Events, []Event{fxOwnerEvent(a, EventCancelled, a.ScheduledFor)})
			want := a
			want.Status = StatusCancelled
			assertRow(t, tr.ApplyTo(a), fxReleased(want, fxActionAt))
		})
	}
}

// Cancel is idempotent: a terminal alarm stays as it is and nothing is written.
func TestCancelTerminalChangesNothing(t *testing.T) {
	for _, s := range []Status{StatusFired, StatusCancelled, StatusFailed} {
		t.Run(string(s), func(t *testing.T) {
			tr, changed := Cancel(withStatus(s)(fxOnce(t)), fxActionAt)
			if changed || tr.Kind != "" || len(tr.Events) != 0 {
				t.Errorf("Cancel of a %s alarm = (%+v, %v), want no change", s, tr, changed)
			}
		})
	}
	// Cancelling twice: the second call, on the applied row, changes nothing.
	a := fxCron(t)
	tr, _ := Cancel(a, fxActionAt)
	if _, changed := Cancel(tr.ApplyTo(a), fxActionAt.Add(time.Second)); changed {
		t.Error("second Cancel changed the alarm")
	}
}

func TestPause(t *testing.T) {
	for _, a := range []Alarm{fxCron(t), fxClaim(fxCron(t), fxWorker, fxClaimedAt), withFailures(3, "HTTP 500")(fxCron(t))} {
		tr, changed, err := Pause(a, fxActionAt)
		if err != nil || !changed {
			t.Fatalf("Pause(%+v) = changed %v, err %v; want paused", a, changed, err)
		}
		assertOwned(t, tr, a, TransitionPaused)
		assertEvents(t, tr.Events, []Event{fxOwnerEvent(a, EventPaused, fxDue)})
		// The schedule, occurrence and failure count are kept: Resume recomputes them.
		want := a
		want.Status = StatusPaused
		got := tr.ApplyTo(a)
		assertRow(t, got, fxReleased(want, fxActionAt))

		// Pausing a paused alarm is a no-op, not an error.
		tr, changed, err = Pause(got, fxActionAt)
		if err != nil || changed || len(tr.Events) != 0 {
			t.Errorf("Pause of a paused alarm = (%+v, %v, %v), want no change and no error", tr, changed, err)
		}
	}
}

func TestPauseRefusesInvalidStates(t *testing.T) {
	for _, tc := range []struct {
		name  string
		alarm Alarm
	}{
		{"active once", fxOnce(t)},
		{"fired once", withStatus(StatusFired)(fxOnce(t))},
		{"cancelled cron", withStatus(StatusCancelled)(fxCron(t))},
		{"fired cron", withStatus(StatusFired)(fxCron(t))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, changed, err := Pause(tc.alarm, fxActionAt)
			if !errors.Is(err, ErrInvalidState) {
				t.Errorf("err = %v, want ErrInvalidState", err)
			}
			if changed || tr.Kind != "" {
				t.Errorf("refused Pause returned a change: %+v", tr)
			}
		})
	}
}

func TestResume(t *testing.T) {
	paused := withStatus(StatusPaused)(withFailures(3, "HTTP 500")(fxCron(t)))
	// Paused for two days: the occurrences that fell meanwhile are not delivered.
	at := fxDue.Add(2*24*time.Hour + time.Hour)
	next := fxDue.Add(3 * 24 * time.Hour)
	tr, changed, err := Resume(paused, at)
	if err != nil || !changed {
		t.Fatalf("Resume = changed %v, err %v; want resumed", changed, err)
	}
	assertOwned(t, tr, paused, TransitionResumed)
	assertEvents(t, tr.Events, []Event{{AlarmID: paused.ID, Type: EventResumed, At: at, ScheduledFor: next}})
	want := paused
	want.Status, want.NextFireAt, want.ScheduledFor, want.FailureCount = StatusActive, next, next, 0
	got := tr.ApplyTo(paused)
	assertRow(t, got, fxReleased(want, at))

	// Resuming an active alarm is a no-op, not an error.
	tr, changed, err = Resume(got, at)
	if err != nil || changed || len(tr.Events) != 0 {
		t.Errorf("Resume of an active alarm = (%+v, %v, %v), want no change and no error", tr, changed, err)
	}
}

// Resume goes strictly after now: resuming exactly at 09:00 waits for tomorrow's 09:00.
func TestResumeOnAnOccurrenceGoesStrictlyAfterIt(t *testing.T) {
	tr, _, err := Resume(withStatus(StatusPaused)(fxCron(t)), fxDue)
	if err != nil {
		t.Fatal(err)
	}
	if !tr.NextFireAt.Equal(fxNextDay) || !tr.ScheduledFor.Equal(fxNextDay) {
		t.Errorf("resumed at %s to %s / %s, want %s", fxDue, tr.NextFireAt, tr.ScheduledFor, fxNextDay)
	}
}

func TestResumeRefusesInvalidStates(t *testing.T) {
	// Both carry an old delivery error, which must not be given as the reason.
	noFuture := withStatus(StatusPaused)(withFailures(0, "HTTP 500")(fxCron(t)))
	noFuture.CronExpr = "0 0 30 2 *" // stored before validation refused it
	broken := withStatus(StatusPaused)(withFailures(0, "HTTP 500")(fxCron(t)))
	broken.CronExpr = "not a cron"
	for _, tc := range []struct {
		name   string
		alarm  Alarm
		reason string
	}{
		{"cancelled cron", withStatus(StatusCancelled)(fxCron(t)), "cancelled"},
		{"fired once", withStatus(StatusFired)(fxOnce(t)), "fired"},
		{"failed once", withStatus(StatusFailed)(fxOnce(t)), "failed"},
		{"schedule with no future occurrence", noFuture, "no future occurrence"},
		{"schedule that no longer parses", broken, "schedule no longer valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, changed, err := Resume(tc.alarm, fxActionAt)
			if !errors.Is(err, ErrInvalidState) {
				t.Errorf("err = %v, want ErrInvalidState", err)
			}
			if err != nil && (!strings.Contains(err.Error(), tc.reason) || strings.Contains(err.Error(), "HTTP 500")) {
				t.Errorf("err = %q, want it to say %q", err, tc.reason)
			}
			if changed || tr.Kind != "" {
				t.Errorf("refused Resume returned a change: %+v", tr)
			}
		})
	}
}

func TestTrigger(t *testing.T) {
	early := fxDue.Add(-30 * time.Minute)
	t.Run("once fires its occurrence early", func(t *testing.T) {
		a := withFailures(1, "HTTP 500")(fxOnce(t))
		tr, err := Trigger(a, early)
		if err != nil {
			t.Fatal(err)
		}
		assertOwned(t, tr, a, TransitionTriggered)
		assertEvents(t, tr.Events, []Event{{AlarmID: a.ID, Type: EventTriggered, At: early, ScheduledFor: fxDue}})
		want := a
		want.NextFireAt = early // due now; the occurrence (and its key) is unchanged
		assertRow(t, tr.ApplyTo(a), fxReleased(want, early))
	})
	t.Run("cron gets a new occurrence now", func(t *testing.T) {
		a := fxClaim(withFailures(2, "HTTP 500")(fxCron(t)), fxWorker, fxClaimedAt)
		tr, err := Trigger(a, early)
		if err != nil {
			t.Fatal(err)
		}
		assertOwned(t, tr, a, TransitionTriggered)
		assertEvents(t, tr.Events, []Event{{AlarmID: a.ID, Type: EventTriggered, At: early, ScheduledFor: early}})
		want := a
		want.NextFireAt, want.ScheduledFor, want.FailureCount = early, early, 0
		got := tr.ApplyTo(a)
		assertRow(t, got, fxReleased(want, early))

		// After the triggered fire the regular schedule continues.
		claimed := fxClaim(got, fxWorker, early)
		got = Decide(Begin(claimed, early, Policy{}), Delivered(), early, Policy{}).ApplyTo(claimed)
		if !got.NextFireAt.Equal(fxDue) {
			t.Errorf("after the triggered fire next_fire_at = %s, want the regular %s", got.NextFireAt, fxDue)
		}
	})
}

func TestTriggerRefusesInactiveAlarms(t *testing.T) {
	for _, tc := range []struct {
		name  string
		alarm Alarm
	}{
		{"paused cron", withStatus(StatusPaused)(fxCron(t))},
		{"cancelled cron", withStatus(StatusCancelled)(fxCron(t))},
		{"fired once", withStatus(StatusFired)(fxOnce(t))},
		{"failed once", withStatus(StatusFailed)(fxOnce(t))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Trigger(tc.alarm, fxActionAt)
			if !errors.Is(err, ErrInvalidState) {
				t.Errorf("err = %v, want ErrInvalidState", err)
			}
			if tr.Kind != "" {
				t.Errorf("refused Trigger returned a change: %+v", tr)
			}
		})
	}
}
