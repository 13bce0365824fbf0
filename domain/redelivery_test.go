package domain

import (
	"errors"
	"testing"
	"time"
)

func TestRedeliveryTarget(t *testing.T) {
	a := Alarm{ID: "a1", Kind: KindCron}
	t1 := time.Date(2026, 3, 1, 9, 0, 0, 123_000, time.UTC) // stores keep sub-seconds; keys do not
	t2 := t1.Add(24 * time.Hour)
	history := []Event{ // newest first, as the attempt log reads; the order does not matter
		{ID: 5, Type: EventPaused, ScheduledFor: t2.Add(24 * time.Hour)}, // not an attempt
		{ID: 4, Type: EventFailed, Attempt: 1, ScheduledFor: t2},
		{ID: 3, Type: EventFired, Attempt: 2, ScheduledFor: t1},
		{ID: 2, Type: EventRetryScheduled, Attempt: 1, ScheduledFor: t1},
		{ID: 0, Type: EventCreated},
		{ID: 3, Type: EventFired, Attempt: 2, ScheduledFor: t1}, // read twice
	}
	for _, c := range []struct {
		name    string
		key     string
		at      time.Time
		attempt int
		field   string // a validation error naming it
		invalid bool   // ErrInvalidState
		history []Event
	}{
		{name: "latest attempted occurrence", at: t2, attempt: 2},
		{name: "by key, after its retries", key: OccurrenceKey("a1", t1), at: t1, attempt: 3},
		{name: "a key never attempted", key: OccurrenceKey("a1", t2.Add(24*time.Hour)), field: "occurrence_key"},
		{name: "another alarm's key", key: OccurrenceKey("a2", t1), field: "occurrence_key"},
		{name: "no time", key: "a1/", field: "occurrence_key"},
		{name: "nothing delivered", invalid: true, history: history[:1]}, // the pause alone
	} {
		t.Run(c.name, func(t *testing.T) {
			h := history
			if c.history != nil {
				h = c.history
			}
			at, attempt, err := RedeliveryTarget(a, h, c.key)
			var ve *ValidationError
			switch {
			case c.field != "":
				if !errors.As(err, &ve) || ve.Field != c.field {
					t.Errorf("err %v, want a validation error naming %s", err, c.field)
				}
			case c.invalid:
				if !errors.Is(err, ErrInvalidState) {
					t.Errorf("err %v, want ErrInvalidState", err)
				}
			case err != nil || !at.Equal(c.at) || attempt != c.attempt:
				t.Errorf("got %s attempt %d (%v), want %s attempt %d", at, attempt, err, c.at, c.attempt)
			}
		})
	}
}

// A redelivery changes nothing of the alarm but its history, and keeps a worker's lease.
func TestRedeliveredKeepsTheAlarm(t *testing.T) {
	now := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	a := Alarm{ID: "a1", Status: StatusFailed, FailureCount: 3, LastError: "HTTP 500", UpdatedAt: now.Add(-time.Hour),
		ClaimedBy: "w1", ClaimedAt: now.Add(-time.Second)}
	tr := Redelivered(a, now.Add(-2*time.Hour), 4, "w2", Delivered(), now)
	after := tr.ApplyTo(a)
	if after.Status != a.Status || after.FailureCount != 3 || after.LastError != a.LastError || !after.UpdatedAt.Equal(a.UpdatedAt) ||
		after.ClaimedBy != "w1" || !tr.Fence.IsZero() {
		t.Errorf("after %+v, want the alarm as it was, its lease kept, unfenced", after)
	}
	if len(tr.Events) != 1 || tr.Events[0].Type != EventRedelivered || tr.Events[0].Attempt != 4 || tr.Events[0].Worker != "w2" {
		t.Errorf("events %+v", tr.Events)
	}
}
