package contract

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var eventCases = []testCase{
	{"CreatedOnCreate", testEventsCreated},
	{"DeliveryHistory", testEventsDeliveryHistory},
	{"Limit", testEventsLimit},
	{"NoneForDedupedCreate", testEventsNoneForDedupedCreate},
	{"NoneForStaleTransition", testEventsNoneForStale},
}

// A history begins with one event, "created", at the creation time, built from the
// alarm's row (ID 0: Create stores no event).
func testEventsCreated(t *testing.T, e *env) {
	a := e.createDue(alice)
	evs := e.events(alice, a.ID)
	if len(evs) != 1 {
		t.Fatalf("events after create = %v, want [created]", eventTypes(evs))
	}
	e.wantCreatedEvent("after create", evs[0], a)
	if evs[0].ID != 0 {
		t.Errorf("created event has id %d, want 0 (built from the alarm, not stored)", evs[0].ID)
	}
}

// stored is the part of a history the store keeps as event rows: all but the created
// event Events builds from the alarm (ID 0). Deletions count only these.
func stored(evs []domain.Event) []domain.Event {
	if len(evs) > 0 && evs[0].Type == domain.EventCreated && evs[0].ID == 0 {
		return evs[1:]
	}
	return evs
}

// Each applied transition appends its events, with every field (attempt, occurrence,
// worker, message), oldest first.
func testEventsDeliveryHistory(t *testing.T, e *env) {
	s := e.onceIn(alice, 0)
	s.MaxFailures = 3
	a := e.create(s)

	e.clock.Advance(time.Second)
	c1 := e.claimOnly("w1", shortLease, a.ID)
	retry := e.fail(c1, "HTTP 503: try later")
	e.applyOK(retry)

	e.clock.Set(retry.NextFireAt)
	c2 := e.claimOnly("w2", shortLease, a.ID)
	fired := e.fire(c2)
	e.applyOK(fired)

	evs := e.events(alice, a.ID)
	e.wantEvents("history", evs, a, eventsOf(retry, fired)...)
	if len(evs) == 3 && (evs[1].Worker != "w1" || evs[2].Worker != "w2" || evs[2].Attempt != 2) {
		t.Errorf("history workers/attempts = (%q, %q, %d), want (w1, w2, 2)", evs[1].Worker, evs[2].Worker, evs[2].Attempt)
	}
}

// limit keeps the oldest events; zero or less means MaxEventsLimit.
func testEventsLimit(t *testing.T, e *env) {
	a := e.create(cronSpec(alice, "@hourly", ""))
	var trs []domain.Transition
	for i := range 5 {
		e.clock.Advance(time.Minute)
		fn := pauseFn
		if i%2 == 1 {
			fn = resumeFn
		}
		trs = append(trs, e.mutateApplied(alice, a.ID, fn))
	}
	all := e.events(alice, a.ID)
	e.wantEvents("all events", all, a, eventsOf(trs...)...)

	for _, c := range []struct{ limit, want int }{
		{1, 1}, {2, 2}, {6, 6}, {7, 6}, {0, 6}, {-1, 6}, {ports.MaxEventsLimit + 1, 6},
	} {
		got, err := e.store.Events(e.ctx, ports.OwnedBy(alice), a.ID, c.limit)
		if err != nil {
			t.Fatalf("Events(limit %d): %v", c.limit, err)
		}
		if len(got) != c.want {
			t.Errorf("Events(limit %d): %d events, want %d", c.limit, len(got), c.want)
			continue
		}
		for i := range got {
			if got[i].ID != all[i].ID {
				t.Errorf("Events(limit %d)[%d] = event %d, want %d (the oldest first)", c.limit, i, got[i].ID, all[i].ID)
			}
		}
	}
}

// A deduped create writes no event.
func testEventsNoneForDedupedCreate(t *testing.T, e *env) {
	s := e.onceIn(alice, time.Hour)
	s.IdempotencyKey = "once-only"
	a := e.create(s)
	for range 3 {
		if _, deduped, err := CreateOne(e.ctx, e.store, e.build(s)); err != nil || !deduped {
			t.Fatalf("re-create with the same key = (deduped %v, %v), want deduped", deduped, err)
		}
	}
	e.wantEvents("events", e.events(alice, a.ID), a)
}

// A stale transition writes none of its events.
func testEventsNoneForStale(t *testing.T, e *env) {
	a := e.createDue(alice)
	held := e.claimOnly("w1", shortLease, a.ID)
	e.clock.Advance(2 * shortLease)
	e.claimOnly("w2", shortLease, a.ID)
	e.applyStale([]domain.Transition{e.fire(held)}, a.ID)
	e.applyStale([]domain.Transition{e.fail(held, "late")}, a.ID)
	e.wantEvents("events", e.events(alice, a.ID), a)
}
