package domain

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestOccurrenceKeyFormat(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skipf("no tzdata for Europe/Paris: %v", err)
	}
	const id = "0195f0c8-7e2a-7cc1-9b6e-0d5c0f3a1b2c"
	for _, tc := range []struct {
		name string
		at   time.Time
		want string
	}{
		{"UTC", time.Date(2025, 3, 10, 9, 0, 0, 0, time.UTC), id + "/2025-03-10T09:00:00Z"},
		{"another zone is written in UTC", time.Date(2025, 3, 10, 10, 0, 0, 0, paris), id + "/2025-03-10T09:00:00Z"},
		{"fixed offset is written in UTC", time.Date(2025, 3, 10, 4, 0, 0, 0, time.FixedZone("", -5*3600)), id + "/2025-03-10T09:00:00Z"},
		// RFC 3339 without fractional seconds: a store that keeps only milliseconds
		// gives the same key as the process that computed the occurrence.
		{"sub-second precision is dropped", time.Date(2025, 3, 10, 9, 0, 0, 987654321, time.UTC), id + "/2025-03-10T09:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := OccurrenceKey(id, tc.at); got != tc.want {
				t.Errorf("OccurrenceKey = %q, want %q", got, tc.want)
			}
			if got := (Alarm{ID: id, ScheduledFor: tc.at}).OccurrenceKey(); got != tc.want {
				t.Errorf("Alarm.OccurrenceKey = %q, want %q", got, tc.want)
			}
		})
	}
}

// Receivers dedupe on the occurrence key, so every retry of one occurrence, on any
// worker, must carry the same key; the next occurrence must carry a new one.
func TestOccurrenceKeyStableAcrossRetries(t *testing.T) {
	for _, a := range []Alarm{fxOnce(t), fxCron(t)} {
		t.Run(string(a.Kind), func(t *testing.T) {
			first := a.OccurrenceKey()
			if want := a.ID + "/2025-03-10T09:00:00Z"; first != want {
				t.Fatalf("key of the first occurrence = %q, want %q", first, want)
			}
			row := a
			for attempt := 1; attempt <= 3; attempt++ {
				now := row.NextFireAt.Add(time.Second)
				claimed := fxClaim(row, fmt.Sprintf("worker-%d", attempt), now)
				w := NewWake(claimed, now)
				if w.OccurrenceKey != first || w.Attempt != attempt || !w.ScheduledFor.Equal(fxDue) {
					t.Fatalf("wake %d: key %q attempt %d scheduled_for %s; want key %q attempt %d scheduled_for %s",
						attempt, w.OccurrenceKey, w.Attempt, w.ScheduledFor, first, attempt, fxDue)
				}
				tr := Decide(Begin(claimed, now, Policy{}), DeliveryFailed("HTTP 503"), now, Policy{})
				if tr.Kind != TransitionRetry || !tr.ScheduledFor.Equal(fxDue) {
					t.Fatalf("retry %d: %s with scheduled_for %s; a retry must not move the occurrence",
						attempt, tr.Kind, tr.ScheduledFor)
				}
				row = tr.ApplyTo(claimed)
				if row.OccurrenceKey() != first {
					t.Fatalf("key after retry %d = %q, want %q", attempt, row.OccurrenceKey(), first)
				}
			}
			if a.Kind != KindCron {
				return
			}
			now := row.NextFireAt.Add(time.Second)
			claimed := fxClaim(row, fxWorker, now)
			row = Decide(Begin(claimed, now, Policy{}), Delivered(), now, Policy{}).ApplyTo(claimed)
			if want := a.ID + "/2025-03-11T09:00:00Z"; row.OccurrenceKey() != want {
				t.Errorf("key of the next occurrence = %q, want %q", row.OccurrenceKey(), want)
			}
		})
	}
}

// A triggered once alarm fires its one occurrence early: the key is unchanged, so a
// receiver that already saw a retry of it dedupes. A triggered cron alarm gets a new
// occurrence at now, with its own key.
func TestOccurrenceKeyAfterTrigger(t *testing.T) {
	at := fxDue.Add(-time.Hour)
	once, err := Trigger(fxOnce(t), at)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := once.ApplyTo(fxOnce(t)).OccurrenceKey(), fxOnce(t).OccurrenceKey(); got != want {
		t.Errorf("triggered once alarm key = %q, want %q", got, want)
	}
	cron, err := Trigger(fxCron(t), at)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cron.ApplyTo(fxCron(t)).OccurrenceKey(), fxCron(t).ID+"/2025-03-10T08:00:00Z"; got != want {
		t.Errorf("triggered cron alarm key = %q, want %q", got, want)
	}
}

func TestNewWakeEchoesTheAlarm(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	a := fxClaim(fxOnce(t, func(s *Spec) {
		s.ConversationID, s.WakeMessage, s.Delivery = "conv-1", "time for tea", AtMostOnce
	}), fxWorker, fxClaimedAt)
	a.FailureCount = 2
	w := NewWake(a, fxNow.In(paris))
	want := Wake{
		AlarmID:        a.ID,
		Owner:          "alice",
		Label:          "tea",
		Kind:           KindOnce,
		ScheduledFor:   fxDue,
		FiredAt:        fxNow,
		Attempt:        3,
		OccurrenceKey:  a.ID + "/2025-03-10T09:00:00Z",
		ConversationID: "conv-1",
		WakeMessage:    "time for tea",
		Payload:        a.Payload,
		Delivery:       AtMostOnce,
	}
	if w.FiredAt.Location() != time.UTC || w.ScheduledFor.Location() != time.UTC {
		t.Errorf("wake times not in UTC: fired_at %s, scheduled_for %s", w.FiredAt, w.ScheduledFor)
	}
	if string(w.Payload) != `{"n":1}` {
		t.Errorf("payload = %s, want it echoed byte for byte", w.Payload)
	}
	w.Payload, want.Payload = nil, nil
	if !reflect.DeepEqual(w, want) {
		t.Errorf("NewWake =\n %+v\nwant\n %+v", w, want)
	}
}
