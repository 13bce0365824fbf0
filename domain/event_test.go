package domain

import (
	"slices"
	"testing"
	"time"
)

func TestWithCreated(t *testing.T) {
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	fireAt := at.Add(time.Hour)
	created := CreatedEvent("a1", at, fireAt)
	if created.ID != 0 || created.Type != EventCreated || created.AlarmID != "a1" || !created.At.Equal(at) || !created.ScheduledFor.Equal(fireAt) {
		t.Fatalf("CreatedEvent = %+v", created)
	}
	fired := Event{ID: 7, AlarmID: "a1", Type: EventFired}
	retried := Event{ID: 9, AlarmID: "a1", Type: EventRetried}
	cancelled := Event{ID: 12, AlarmID: "a1", Type: EventCancelled}
	legacy := Event{ID: 3, AlarmID: "a1", Type: EventCreated} // stored by an earlier version

	for _, c := range []struct {
		name   string
		stored []Event
		limit  int
		want   []int64 // ids, 0 for the built created event
	}{
		{"no stored events", nil, 10, []int64{0}},
		{"created first", []Event{fired, retried}, 10, []int64{0, 7, 9}},
		{"limit counts the created event", []Event{fired, retried, cancelled}, 2, []int64{0, 7}},
		{"limit 1", []Event{fired}, 1, []int64{0}},
		{"no limit", []Event{fired, retried, cancelled}, 0, []int64{0, 7, 9, 12}},
		{"a stored created event is kept, none added", []Event{legacy, fired}, 10, []int64{3, 7}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := WithCreated(c.stored, created, c.limit)
			ids := make([]int64, len(got))
			for i, e := range got {
				ids[i] = e.ID
			}
			if !slices.Equal(ids, c.want) || got[0].Type != EventCreated {
				t.Errorf("WithCreated = ids %v (first %s), want %v", ids, got[0].Type, c.want)
			}
		})
	}
}
