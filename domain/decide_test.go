package domain

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Fixtures shared by the state-machine tests (decide, owner actions, occurrence keys).
// Names carry a "fx" prefix so they cannot collide with helpers of other test files in
// this package.
var (
	// fxCreated is when the fixture alarms were created.
	fxCreated = time.Date(2025, 3, 10, 8, 0, 0, 0, time.UTC)
	// fxDue is the occurrence both fixture alarms are due at (cron "0 9 * * *" UTC).
	fxDue = time.Date(2025, 3, 10, 9, 0, 0, 0, time.UTC)
	// fxClaimedAt is when the worker took the lease, and fxNow when its outcome is decided.
	fxClaimedAt = fxDue.Add(time.Second)
	fxNow       = fxDue.Add(2 * time.Second)
	// fxNextDay is the cron fixture's occurrence after fxDue.
	fxNextDay = fxDue.Add(24 * time.Hour)
)

const fxWorker = "worker-a"

// fxOnce is a once alarm due at fxDue, as NewAlarm builds it, not yet claimed.
func fxOnce(t *testing.T, mutate ...func(*Spec)) Alarm {
	t.Helper()
	at := fxDue
	spec := Spec{Owner: "alice", Label: "tea", Kind: KindOnce, FireAt: &at, Payload: []byte(`{"n":1}`)}
	for _, m := range mutate {
		m(&spec)
	}
	a, err := NewAlarm("0195f0c8-once", spec, fxCreated, Defaults{MaxFailures: 5})
	if err != nil {
		t.Fatalf("fixture once alarm: %v", err)
	}
	return a
}

// fxCron is a daily 09:00 UTC cron alarm whose first occurrence is fxDue, not yet claimed.
func fxCron(t *testing.T, mutate ...func(*Spec)) Alarm {
	t.Helper()
	spec := Spec{Owner: "alice", Label: "standup", Kind: KindCron, CronExpr: "0 9 * * *"}
	for _, m := range mutate {
		m(&spec)
	}
	a, err := NewAlarm("0195f0c8-cron", spec, fxCreated, Defaults{MaxFailures: 5})
	if err != nil {
		t.Fatalf("fixture cron alarm: %v", err)
	}
	if spec.CronExpr == "0 9 * * *" && !a.NextFireAt.Equal(fxDue) {
		t.Fatalf("fixture cron alarm is due at %s, want %s", a.NextFireAt, fxDue)
	}
	return a
}

// fxClaim is what a store's ClaimDue hands the dispatcher: the row with a lease stamped.
func fxClaim(a Alarm, worker string, at time.Time) Alarm {
	a.ClaimedBy, a.ClaimedAt = worker, at
	return a
}

// fxReleased is a after a transition that releases the lease at now.
func fxReleased(a Alarm, now time.Time) Alarm {
	a.ClaimedBy, a.ClaimedAt = "", time.Time{}
	a.UpdatedAt = now
	return a
}

// fxEvent is the event a worker-made transition of a records.
func fxEvent(a Alarm, typ EventType, now time.Time, msg string) Event {
	return Event{
		AlarmID:      a.ID,
		Type:         typ,
		At:           now,
		Attempt:      a.FailureCount + 1,
		ScheduledFor: a.ScheduledFor,
		Worker:       a.ClaimedBy,
		Message:      msg,
	}
}

func withFailures(n int, lastError string) func(Alarm) Alarm {
	return func(a Alarm) Alarm {
		a.FailureCount, a.LastError = n, lastError
		return a
	}
}

func withMaxFailures(n int) func(*Spec) { return func(s *Spec) { s.MaxFailures = n } }

func withDelivery(d Delivery) func(*Spec) { return func(s *Spec) { s.Delivery = d } }

// assertRow fails unless got and want are the same row, naming the differing fields.
func assertRow(t *testing.T, got, want Alarm) {
	t.Helper()
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range gv.NumField() {
		g, w := gv.Field(i).Interface(), wv.Field(i).Interface()
		if gt, ok := g.(time.Time); ok {
			if wt := w.(time.Time); !gt.Equal(wt) || gt.Location() != wt.Location() {
				t.Errorf("row.%s = %v, want %v", gv.Type().Field(i).Name, gt, wt)
			}
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("row.%s = %#v, want %#v", gv.Type().Field(i).Name, g, w)
		}
	}
}

func assertEvents(t *testing.T, got, want []Event) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got  %+v\n want %+v", got, want)
	}
}

// assertFenced checks what every worker-made transition must carry: the alarm's id and
// exactly the lease of the claimed row, so a lapsed worker cannot overwrite a new claim.
func assertFenced(t *testing.T, tr Transition, claimed Alarm) {
	t.Helper()
	if tr.AlarmID != claimed.ID {
		t.Errorf("AlarmID = %q, want %q", tr.AlarmID, claimed.ID)
	}
	want := Fence{Worker: claimed.ClaimedBy, ClaimedAt: claimed.ClaimedAt}
	if tr.Fence.IsZero() || tr.Fence != want {
		t.Errorf("Fence = %+v, want the claimed lease %+v", tr.Fence, want)
	}
}

func TestDecideAtLeastOnce(t *testing.T) {
	once := fxOnce(t)
	cron := fxCron(t)
	every := fxCron(t, func(s *Spec) { s.CronExpr = "@every 1m" })
	tests := []struct {
		name    string
		alarm   Alarm // claimed by fxWorker at fxClaimedAt
		prepare func(Alarm) Alarm
		outcome Outcome
		now     time.Time
		policy  Policy
		kind    TransitionKind
		row     func(a Alarm) Alarm // the claimed row as Apply must leave it
		events  func(a Alarm) []Event
	}{
		{
			name: "once delivered is fired", alarm: once, outcome: Delivered(),
			kind: TransitionFired,
			row: func(a Alarm) Alarm {
				a.Status, a.LastFiredAt = StatusFired, fxNow
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventFired, fxNow, "")} },
		},
		{
			name: "once delivered on a retry is fired and keeps its history", alarm: once,
			prepare: withFailures(2, "HTTP 503"), outcome: Delivered(),
			kind: TransitionFired,
			row: func(a Alarm) Alarm {
				a.Status, a.LastFiredAt = StatusFired, fxNow
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventFired, fxNow, "")} },
		},
		{
			name: "once first failure retries after the base delay", alarm: once,
			outcome: DeliveryFailed("HTTP 500: boom"),
			kind:    TransitionRetry,
			row: func(a Alarm) Alarm {
				a.FailureCount, a.LastError, a.NextFireAt = 1, "HTTP 500: boom", fxNow.Add(30*time.Second)
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event {
				return []Event{fxEvent(a, EventRetryScheduled, fxNow, "HTTP 500: boom")}
			},
		},
		{
			name: "once third failure waits four times the base", alarm: once,
			prepare: withFailures(2, "old"), outcome: DeliveryFailed("timeout"),
			kind: TransitionRetry,
			row: func(a Alarm) Alarm {
				a.FailureCount, a.LastError, a.NextFireAt = 3, "timeout", fxNow.Add(2*time.Minute)
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventRetryScheduled, fxNow, "timeout")} },
		},
		{
			name: "failure without text still records why", alarm: once,
			outcome: DeliveryFailed(""),
			kind:    TransitionRetry,
			row: func(a Alarm) Alarm {
				a.FailureCount, a.LastError, a.NextFireAt = 1, "delivery failed", fxNow.Add(30*time.Second)
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event {
				return []Event{fxEvent(a, EventRetryScheduled, fxNow, "delivery failed")}
			},
		},
		{
			name: "retry uses the policy's backoff", alarm: once,
			prepare: withFailures(3, "old"), outcome: DeliveryFailed("refused"),
			policy: Policy{Backoff: Backoff{Base: 10 * time.Second, Cap: time.Minute}},
			kind:   TransitionRetry,
			row: func(a Alarm) Alarm {
				// 10s doubled three times is 80s, above the 1m cap.
				a.FailureCount, a.LastError, a.NextFireAt = 4, "refused", fxNow.Add(time.Minute)
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventRetryScheduled, fxNow, "refused")} },
		},
		{
			name: "once exhausted is failed", alarm: once,
			prepare: withFailures(4, "old"), outcome: DeliveryFailed("HTTP 410"),
			kind: TransitionFailed,
			row: func(a Alarm) Alarm {
				a.Status, a.FailureCount, a.LastError = StatusFailed, 5, "HTTP 410"
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventFailed, fxNow, "HTTP 410")} },
		},
		{
			name: "cron delivered moves to the next occurrence and resets the count", alarm: cron,
			prepare: withFailures(2, "HTTP 503"), outcome: Delivered(),
			kind: TransitionRescheduled,
			row: func(a Alarm) Alarm {
				a.NextFireAt, a.ScheduledFor, a.FailureCount, a.LastFiredAt = fxNextDay, fxNextDay, 0, fxNow
				a.FireCount = 1
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventFired, fxNow, "")} },
		},
		{
			name: "cron delivered a day late: the occurrence due that instant is not missed and comes next", alarm: cron,
			outcome: Delivered(), now: fxNextDay,
			kind: TransitionRescheduled,
			row: func(a Alarm) Alarm {
				next := fxNextDay
				a.NextFireAt, a.ScheduledFor, a.LastFiredAt = next, next, fxNextDay
				a.FireCount = 1
				return fxReleased(a, fxNextDay)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventFired, fxNextDay, "")} },
		},
		{
			name: "cron delivered after downtime (fire_once) drops the missed occurrences in one event", alarm: cron,
			outcome: Delivered(), now: fxDue.Add(3*24*time.Hour + 3*time.Hour),
			kind: TransitionRescheduled,
			row: func(a Alarm) Alarm {
				now := fxDue.Add(3*24*time.Hour + 3*time.Hour)
				next := fxDue.Add(4 * 24 * time.Hour)
				a.NextFireAt, a.ScheduledFor, a.LastFiredAt = next, next, now
				a.FireCount = 1
				return fxReleased(a, now)
			},
			events: func(a Alarm) []Event {
				// One fire, for the occurrence that was claimed; one event for the missed days.
				now := fxDue.Add(3*24*time.Hour + 3*time.Hour)
				missed := Event{AlarmID: a.ID, Type: EventMissed, At: now, ScheduledFor: fxDue.Add(24 * time.Hour),
					Message: "3 occurrences dropped, 2025-03-11T09:00:00Z to 2025-03-13T09:00:00Z (misfire fire_once)"}
				return []Event{fxEvent(a, EventFired, now, ""), missed}
			},
		},
		{
			name: "@every delivered late keeps its phase: missed ones dropped, one within the threshold next", alarm: every,
			outcome: Delivered(),
			kind:    TransitionRescheduled,
			row: func(a Alarm) Alarm {
				next := fxNow.Truncate(time.Minute) // 2 s late: not missed, so due at once
				a.NextFireAt, a.ScheduledFor, a.LastFiredAt = next, next, fxNow
				a.FireCount = 1
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event {
				missed := Event{AlarmID: a.ID, Type: EventMissed, At: fxNow, ScheduledFor: a.ScheduledFor.Add(time.Minute),
					Message: "58 occurrences dropped, 2025-03-10T08:02:00Z to 2025-03-10T08:59:00Z (misfire fire_once)"}
				return []Event{fxEvent(a, EventFired, fxNow, ""), missed}
			},
		},
		{
			name: "cron failure retries the same occurrence", alarm: cron,
			prepare: withFailures(1, "old"), outcome: DeliveryFailed("HTTP 502"),
			kind: TransitionRetry,
			row: func(a Alarm) Alarm {
				a.FailureCount, a.LastError, a.NextFireAt = 2, "HTTP 502", fxNow.Add(time.Minute)
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventRetryScheduled, fxNow, "HTTP 502")} },
		},
		{
			name: "cron exhausted skips to the next occurrence and keeps the error", alarm: cron,
			prepare: withFailures(4, "old"), outcome: DeliveryFailed("HTTP 500"),
			kind: TransitionSkipped,
			row: func(a Alarm) Alarm {
				a.NextFireAt, a.ScheduledFor, a.FailureCount, a.LastError = fxNextDay, fxNextDay, 0, "HTTP 500"
				a.SkipStreak = 1
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventSkipped, fxNow, "HTTP 500")} },
		},
		{
			name: "cron delivered with no future occurrence retires as fired", alarm: cron,
			// NewAlarm refuses such a series; a stored one can still reach this state.
			prepare: func(a Alarm) Alarm { a.CronExpr = "0 0 30 2 *"; return a },
			outcome: Delivered(),
			kind:    TransitionRescheduled,
			row: func(a Alarm) Alarm {
				a.Status, a.FailureCount, a.LastFiredAt, a.FireCount = StatusFired, 0, fxNow, 1
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventFired, fxNow, "")} },
		},
		{
			name: "cron exhausted with no future occurrence retires as fired", alarm: cron,
			prepare: func(a Alarm) Alarm {
				a.CronExpr, a.FailureCount = "0 0 30 2 *", 4
				return a
			},
			outcome: DeliveryFailed("HTTP 500"),
			kind:    TransitionSkipped,
			row: func(a Alarm) Alarm {
				a.Status, a.FailureCount, a.LastError, a.SkipStreak = StatusFired, 0, "HTTP 500", 1
				return fxReleased(a, fxNow)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventSkipped, fxNow, "HTTP 500")} },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.alarm
			if tc.prepare != nil {
				a = tc.prepare(a)
			}
			a = fxClaim(a, fxWorker, fxClaimedAt)
			now := tc.now
			if now.IsZero() {
				now = fxNow
			}
			f := Begin(a, now, Policy{})
			if f.Advance != nil {
				t.Fatalf("Begin made an advance for an at-least-once alarm: %+v", f.Advance)
			}
			tr := Decide(f, tc.outcome, now, tc.policy)
			if tr.Kind != tc.kind {
				t.Errorf("Kind = %q, want %q", tr.Kind, tc.kind)
			}
			assertFenced(t, tr, a)
			if tr.KeepLease {
				t.Error("KeepLease = true; an at-least-once outcome must release the lease")
			}
			assertEvents(t, tr.Events, tc.events(a))
			assertRow(t, tr.ApplyTo(a), tc.row(a))
		})
	}
}

// A stored cron expression that no longer parses must not lose the alarm: it is paused
// with the reason in last_error, whatever the delivery outcome was.
func TestDecidePausesSeriesWhoseScheduleNoLongerParses(t *testing.T) {
	broken := fxCron(t)
	broken.CronExpr = "not a cron"
	for _, tc := range []struct {
		name    string
		failed  int
		outcome Outcome
		kind    TransitionKind
	}{
		{"delivered", 0, Delivered(), TransitionRescheduled},
		{"exhausted", 4, DeliveryFailed("HTTP 500"), TransitionSkipped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := broken
			a.FailureCount = tc.failed
			a = fxClaim(a, fxWorker, fxClaimedAt)
			tr := Decide(Begin(a, fxNow, Policy{}), tc.outcome, fxNow, Policy{})
			if tr.Kind != tc.kind {
				t.Errorf("Kind = %q, want %q", tr.Kind, tc.kind)
			}
			assertFenced(t, tr, a)
			got := tr.ApplyTo(a)
			if got.Status != StatusPaused {
				t.Errorf("Status = %q, want paused", got.Status)
			}
			if !strings.Contains(got.LastError, "schedule no longer valid") {
				t.Errorf("LastError = %q, want the reason the series was paused", got.LastError)
			}
			if got.Claimed() {
				t.Errorf("lease kept: %+v", got.Fence())
			}
		})
	}
}

func TestDecideAtMostOnce(t *testing.T) {
	amo := withDelivery(AtMostOnce)
	recordedAt := fxNow.Add(3 * time.Second) // the wake took three seconds
	tests := []struct {
		name    string
		alarm   Alarm
		outcome Outcome
		// advanced is the row once Begin's advance is applied; recorded once the outcome is.
		advanced func(a Alarm) Alarm
		recorded func(a Alarm) Alarm
		events   func(a Alarm) []Event // of the recorded transition
	}{
		{
			name: "once delivered", alarm: fxOnce(t, amo), outcome: Delivered(),
			advanced: func(a Alarm) Alarm {
				a.Status, a.LastFiredAt, a.UpdatedAt = StatusFired, fxNow, fxNow
				return a
			},
			recorded: func(a Alarm) Alarm {
				a.Status, a.LastFiredAt = StatusFired, fxNow
				return fxReleased(a, recordedAt)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventAttemptDelivered, recordedAt, "")} },
		},
		{
			name: "once failed is failed, not retried", alarm: fxOnce(t, amo), outcome: DeliveryFailed("HTTP 500"),
			advanced: func(a Alarm) Alarm {
				a.Status, a.LastFiredAt, a.UpdatedAt = StatusFired, fxNow, fxNow
				return a
			},
			recorded: func(a Alarm) Alarm {
				a.Status, a.FailureCount, a.LastError, a.LastFiredAt = StatusFailed, 1, "HTTP 500", fxNow
				return fxReleased(a, recordedAt)
			},
			events: func(a Alarm) []Event {
				return []Event{fxEvent(a, EventAttemptFailed, recordedAt, "HTTP 500 (at-most-once: not retried)")}
			},
		},
		{
			name: "cron delivered", alarm: fxCron(t, amo), outcome: Delivered(),
			advanced: func(a Alarm) Alarm {
				a.NextFireAt, a.ScheduledFor, a.LastFiredAt, a.UpdatedAt = fxNextDay, fxNextDay, fxNow, fxNow
				a.FireCount = 1
				return a
			},
			recorded: func(a Alarm) Alarm {
				a.NextFireAt, a.ScheduledFor, a.LastFiredAt, a.FireCount = fxNextDay, fxNextDay, fxNow, 1
				return fxReleased(a, recordedAt)
			},
			events: func(a Alarm) []Event { return []Event{fxEvent(a, EventAttemptDelivered, recordedAt, "")} },
		},
		{
			name: "cron failed keeps the next occurrence and records the error", alarm: fxCron(t, amo),
			outcome: DeliveryFailed("connection refused"),
			advanced: func(a Alarm) Alarm {
				a.NextFireAt, a.ScheduledFor, a.LastFiredAt, a.UpdatedAt = fxNextDay, fxNextDay, fxNow, fxNow
				a.FireCount = 1
				return a
			},
			recorded: func(a Alarm) Alarm {
				a.NextFireAt, a.ScheduledFor, a.LastFiredAt, a.FireCount = fxNextDay, fxNextDay, fxNow, 1
				a.LastError, a.SkipStreak = "connection refused", 1 // not delivered: counts for the breaker
				return fxReleased(a, recordedAt)
			},
			events: func(a Alarm) []Event {
				return []Event{fxEvent(a, EventAttemptFailed, recordedAt, "connection refused (at-most-once: not retried)")}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := fxClaim(tc.alarm, fxWorker, fxClaimedAt)
			f := Begin(a, fxNow, Policy{})
			if f.Advance == nil {
				t.Fatal("Begin made no advance for an at-most-once alarm")
			}
			adv := *f.Advance
			if adv.Kind != TransitionAdvanced {
				t.Errorf("advance Kind = %q, want %q", adv.Kind, TransitionAdvanced)
			}
			assertFenced(t, adv, a)
			if !adv.KeepLease {
				t.Error("advance releases the lease; it must hold it until the outcome is recorded")
			}
			assertEvents(t, adv.Events, []Event{fxEvent(a, EventFired, fxNow, "")})
			advanced := adv.ApplyTo(a)
			// Until the outcome is recorded, the row says the wake is in doubt: if the
			// worker dies now, that is what the owner sees.
			if !strings.HasPrefix(advanced.LastError, InDoubtPrefix) || !strings.Contains(advanced.LastError, fxWorker) {
				t.Errorf("advanced last_error = %q, want the in-doubt note naming %s", advanced.LastError, fxWorker)
			}
			wantAdvanced := tc.advanced(a)
			wantAdvanced.LastError = advanced.LastError
			assertRow(t, advanced, wantAdvanced)

			tr := Decide(f, tc.outcome, recordedAt, Policy{})
			if tr.Kind != TransitionRecorded {
				t.Errorf("Kind = %q, want %q", tr.Kind, TransitionRecorded)
			}
			// The advance kept the lease, so the recorded outcome is fenced on the same one.
			assertFenced(t, tr, advanced)
			if tr.KeepLease {
				t.Error("recorded outcome keeps the lease; it must release it")
			}
			assertEvents(t, tr.Events, tc.events(a))
			assertRow(t, tr.ApplyTo(advanced), tc.recorded(a))
			if got := tr.ApplyTo(advanced); got.Status == StatusActive && got.NextFireAt.Before(fxNextDay) {
				t.Errorf("at-most-once occurrence rescheduled for a retry at %s", got.NextFireAt)
			}
		})
	}
}

// max_failures is the number of failed deliveries after which a once alarm is failed
// (a cron alarm skips to its next occurrence): max_failures=2 means exactly two
// attempts. This drives the whole claim → Begin → Decide → Apply loop.
func TestMaxFailuresIsTheNumberOfAttempts(t *testing.T) {
	for _, kind := range []Kind{KindOnce, KindCron} {
		for _, maxFailures := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("%s/max_failures=%d", kind, maxFailures), func(t *testing.T) {
				var row Alarm
				if kind == KindOnce {
					row = fxOnce(t, withMaxFailures(maxFailures))
				} else {
					row = fxCron(t, withMaxFailures(maxFailures))
				}
				occurrence := row.OccurrenceKey()
				now := row.NextFireAt
				attempts := 0
				var last Transition
				for row.Status == StatusActive && row.ScheduledFor.Equal(fxDue) {
					if attempts > maxFailures {
						t.Fatalf("still active after %d attempts", attempts)
					}
					now = row.NextFireAt.Add(time.Second) // claimed one second after it is due
					claimed := fxClaim(row, fmt.Sprintf("worker-%d", attempts), now)
					if got := NewWake(claimed, now); got.Attempt != attempts+1 || got.OccurrenceKey != occurrence {
						t.Fatalf("wake %d: attempt %d key %q, want attempt %d key %q",
							attempts+1, got.Attempt, got.OccurrenceKey, attempts+1, occurrence)
					}
					attempts++
					last = Decide(Begin(claimed, now, Policy{}), DeliveryFailed("HTTP 500"), now, Policy{Backoff: DefaultBackoff})
					assertFenced(t, last, claimed)
					if attempts < maxFailures {
						want := now.Add(DefaultBackoff.Delay(attempts - 1))
						if last.Kind != TransitionRetry || !last.NextFireAt.Equal(want) {
							t.Fatalf("attempt %d: %s at %s, want retry at %s", attempts, last.Kind, last.NextFireAt, want)
						}
					}
					row = last.ApplyTo(claimed)
				}
				if attempts != maxFailures {
					t.Errorf("%d attempts, want %d", attempts, maxFailures)
				}
				if kind == KindOnce {
					if last.Kind != TransitionFailed || row.Status != StatusFailed || row.FailureCount != maxFailures {
						t.Errorf("after the last attempt: %s, status %s, failures %d; want failed with %d",
							last.Kind, row.Status, row.FailureCount, maxFailures)
					}
				} else {
					if last.Kind != TransitionSkipped || row.Status != StatusActive || row.FailureCount != 0 ||
						!row.ScheduledFor.Equal(fxNextDay) {
						t.Errorf("after the last attempt: %s, status %s, failures %d, next %s; want skipped to %s",
							last.Kind, row.Status, row.FailureCount, row.ScheduledFor, fxNextDay)
					}
				}
				if row.LastError != "HTTP 500" {
					t.Errorf("LastError = %q, want the last failure", row.LastError)
				}
			})
		}
	}
}

// An at-most-once alarm gets one attempt per occurrence, whatever max_failures says:
// a once alarm is failed, a cron alarm waits for its next occurrence.
func TestAtMostOnceIsNeverRetried(t *testing.T) {
	for _, a := range []Alarm{
		fxOnce(t, withDelivery(AtMostOnce), withMaxFailures(5)),
		fxCron(t, withDelivery(AtMostOnce), withMaxFailures(5)),
	} {
		claimed := fxClaim(a, fxWorker, fxClaimedAt)
		f := Begin(claimed, fxNow, Policy{})
		if f.Advance == nil {
			t.Fatalf("%s: Begin made no advance for an at-most-once alarm", a.Kind)
		}
		row := Decide(f, DeliveryFailed("timeout"), fxNow, Policy{}).ApplyTo(f.Advance.ApplyTo(claimed))
		if a.Kind == KindOnce && row.Status != StatusFailed {
			t.Errorf("once: Status = %q after one failed attempt, want failed", row.Status)
		}
		if a.Kind == KindCron && (row.Status != StatusActive || !row.NextFireAt.Equal(fxNextDay)) {
			t.Errorf("cron: %s due %s after one failed attempt, want active at the next occurrence %s",
				row.Status, row.NextFireAt, fxNextDay)
		}
	}
}

// The in-doubt note of an at-most-once advance is replaced by the recorded outcome: a
// delivered wake brings back the error the alarm carried before, a failed one its own.
func TestAtMostOnceInDoubtNoteIsReplacedByTheOutcome(t *testing.T) {
	a := fxClaim(fxCron(t, func(s *Spec) { s.Delivery = AtMostOnce }), fxWorker, fxClaimedAt)
	a.LastError = "HTTP 500 three days ago"
	f := Begin(a, fxNow, Policy{})
	if got := f.Advance.LastError; !strings.HasPrefix(got, InDoubtPrefix) {
		t.Fatalf("advance last_error = %q, want the in-doubt note", got)
	}
	if got := Decide(f, Delivered(), fxNow, Policy{}).LastError; got != a.LastError {
		t.Errorf("after delivery last_error = %q, want the earlier %q back", got, a.LastError)
	}
	if got := Decide(f, DeliveryFailed("HTTP 503"), fxNow, Policy{}).LastError; got != "HTTP 503" {
		t.Errorf("after failure last_error = %q, want HTTP 503", got)
	}
}

// The receiver's word: a Retry-After moves the retry to that time, never past the
// backoff cap; 410 Gone stops retrying the occurrence (a once alarm fails, a series moves
// on as after its last failed delivery).
func TestDecideHonoursTheReceiversWord(t *testing.T) {
	p := Policy{Backoff: Backoff{Base: 30 * time.Second, Cap: 10 * time.Minute}}
	once := fxClaim(fxOnce(t), fxWorker, fxClaimedAt)
	for _, tc := range []struct {
		wait, want time.Duration
	}{
		{2 * time.Minute, 2 * time.Minute}, // later than the backoff's 30 s
		{5 * time.Second, 5 * time.Second}, // sooner
		{3 * time.Hour, 10 * time.Minute},  // capped
	} {
		o := DeliveryFailed("HTTP 429")
		o.RetryAfter = tc.wait
		tr := Decide(Begin(once, fxNow, p), o, fxNow, p)
		if tr.Kind != TransitionRetry || !tr.NextFireAt.Equal(fxNow.Add(tc.want)) {
			t.Errorf("Retry-After %s: %s due %s, want a retry at now+%s", tc.wait, tr.Kind, tr.NextFireAt, tc.want)
		}
	}
	gone := DeliveryFailed("webhook: HTTP 410 Gone")
	gone.Gone = true
	tr := Decide(Begin(once, fxNow, p), gone, fxNow, p)
	if tr.Kind != TransitionFailed || tr.Status != StatusFailed || !strings.Contains(tr.LastError, "410 Gone: not retried") {
		t.Errorf("410 on a once alarm: %s %s %q, want failed at once", tr.Kind, tr.Status, tr.LastError)
	}
	cron := fxClaim(fxCron(t), fxWorker, fxClaimedAt)
	tr = Decide(Begin(cron, fxNow, p), gone, fxNow, p)
	if tr.Kind != TransitionSkipped || tr.Status != StatusActive || !tr.ScheduledFor.Equal(fxNextDay) || tr.SkipStreak != 1 {
		t.Errorf("410 on a series: %s %s next %s streak %d, want skipped to the next occurrence", tr.Kind, tr.Status, tr.ScheduledFor, tr.SkipStreak)
	}
}

// A wake the egress policy refused is an attempt that is not retried: the same policy
// would refuse every retry, so a once alarm fails at once and a series moves on, with
// the refusal as its last_error.
func TestDecideEgressRefusedIsNotRetried(t *testing.T) {
	p := Policy{Backoff: DefaultBackoff}
	refused := DeliveryFailed("egress refused: 127.0.0.1 is loopback; see --endpoint-allow-cidr")
	refused.Refused = true
	once := fxClaim(fxOnce(t), fxWorker, fxClaimedAt)
	tr := Decide(Begin(once, fxNow, p), refused, fxNow, p)
	if tr.Kind != TransitionFailed || tr.Status != StatusFailed || tr.FailureCount != 1 ||
		tr.LastError != "egress refused: 127.0.0.1 is loopback; see --endpoint-allow-cidr (not retried)" {
		t.Errorf("once: %s %s failures %d %q, want failed at the first attempt", tr.Kind, tr.Status, tr.FailureCount, tr.LastError)
	}
	cron := fxClaim(fxCron(t), fxWorker, fxClaimedAt)
	tr = Decide(Begin(cron, fxNow, p), refused, fxNow, p)
	if tr.Kind != TransitionSkipped || tr.Status != StatusActive || !tr.ScheduledFor.Equal(fxNextDay) || tr.SkipStreak != 1 {
		t.Errorf("series: %s %s next %s streak %d, want skipped to the next occurrence", tr.Kind, tr.Status, tr.ScheduledFor, tr.SkipStreak)
	}
}

// A wake held back (its endpoint busy, its breaker open) is not an attempt: the alarm is
// due again later with nothing counted; an at-most-once alarm's advance is undone.
func TestDecideDeferred(t *testing.T) {
	p := Policy{Backoff: DefaultBackoff}
	once := fxClaim(withFailures(2, "HTTP 503")(fxOnce(t)), fxWorker, fxClaimedAt)
	tr := Decide(Begin(once, fxNow, p), Deferred(time.Second, "endpoint busy"), fxNow, p)
	got := tr.ApplyTo(once)
	if tr.Kind != TransitionDeferred || got.FailureCount != 2 || got.LastError != "HTTP 503" || !got.NextFireAt.Equal(fxNow.Add(time.Second)) ||
		got.Claimed() || len(tr.Events) != 0 {
		t.Errorf("deferred once alarm: %+v events %v", got, tr.Events)
	}
	amo := fxClaim(fxCron(t, func(s *Spec) { s.Delivery = AtMostOnce }), fxWorker, fxClaimedAt)
	f := Begin(amo, fxNow, p)
	advanced := f.Advance.ApplyTo(amo)
	tr = Decide(f, Deferred(time.Second, "endpoint busy"), fxNow, p)
	undone := tr.ApplyTo(advanced)
	if !undone.ScheduledFor.Equal(amo.ScheduledFor) || undone.FireCount != amo.FireCount || undone.LastError != amo.LastError ||
		!undone.NextFireAt.Equal(fxNow.Add(time.Second)) || undone.Claimed() {
		t.Errorf("deferred at-most-once series: %+v, want the advance undone", undone)
	}
	assertFenced(t, tr, advanced)
	if len(tr.Events) != 1 || tr.Events[0].Type != EventDeferred {
		t.Errorf("events %v, want one deferred event", tr.Events)
	}
}

// Whatever a waker's error holds, the outcome records text every store keeps and an
// owner can read: no NUL (PostgreSQL refuses it, and an outcome it cannot write is
// never recorded), valid UTF-8, bounded.
func TestFailureTextIsPrintableAndBounded(t *testing.T) {
	long := strings.Repeat("é", MaxFailureText) // twice the bound in bytes
	for _, tt := range []struct{ in, want string }{
		{"HTTP 503 Service Unavailable: busy\nretry later", "HTTP 503 Service Unavailable: busy\nretry later"},
		{"handler: \x00\x01 raw \xff bytes\tand a tab", "handler: \uFFFD\uFFFD raw \uFFFD bytes\tand a tab"},
		{long, long[:MaxFailureText] + "…"},
		{"x" + long, "x" + long[:MaxFailureText-2] + "…"}, // never half a character
	} {
		for _, o := range []Outcome{DeliveryFailed(tt.in), Deferred(time.Second, tt.in)} {
			if o.Error != tt.want {
				t.Errorf("outcome of %.40q: Error = %.60q..., want %.60q...", tt.in, o.Error, tt.want)
			}
		}
	}
}

// Beginning an at-least-once firing, which has nothing to skip or advance, allocates
// nothing: the dispatcher begins one per claimed alarm, thousands a second.
func TestBeginAtLeastOnceAllocatesNothing(t *testing.T) {
	for name, a := range map[string]Alarm{
		"once": fxClaim(fxOnce(t), fxWorker, fxClaimedAt),
		"cron": fxClaim(fxCron(t), fxWorker, fxClaimedAt),
	} {
		var f Firing
		if n := testing.AllocsPerRun(100, func() { f = Begin(a, fxNow, Policy{}) }); n != 0 || f.Skip != nil || f.Advance != nil {
			t.Errorf("%s: Begin allocated %.0f times (skip %v, advance %v), want 0", name, n, f.Skip, f.Advance)
		}
	}
}
