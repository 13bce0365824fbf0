package contract

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// BulkCreate: ports.BulkCreator is optional. A store that does not implement it has
// these cases skipped, each saying so; every other store must pass them.
var bulkCases = []testCase{
	{"RoundTrip", testBulkRoundTrip},
	{"CreatedEvents", testBulkCreatedEvents},
	{"ClaimableLikeCreate", testBulkClaimable},
	{"ManyStatements", testBulkManyStatements},
	{"ConflictWritesNothing", testBulkConflict},
	{"Empty", testBulkEmpty},
}

// bulk returns the store's BulkCreator, or skips the case saying why.
func (e *env) bulk() ports.BulkCreator {
	e.t.Helper()
	bc, ok := e.store.(ports.BulkCreator)
	if !ok {
		e.t.Skipf("store %T does not implement the optional ports.BulkCreator; BulkCreate cases not run", e.store)
	}
	return bc
}

func (e *env) createMany(as []domain.Alarm) {
	e.t.Helper()
	if err := e.bulk().CreateMany(e.ctx, as); err != nil {
		e.t.Fatalf("CreateMany(%d alarms): %v", len(as), err)
	}
}

// bulkMix builds n alarms of both kinds, both deliveries, with and without keys and
// payloads, due in the past, now and later.
func (e *env) bulkMix(n int) []domain.Alarm {
	e.t.Helper()
	as := make([]domain.Alarm, n)
	for i := range as {
		var s domain.Spec
		if i%3 == 2 {
			s = cronSpec(alice, "*/5 * * * *", "Europe/Berlin")
		} else {
			s = e.onceIn(alice, time.Duration(i%7-3)*time.Minute)
		}
		if i%2 == 0 {
			s.Owner = bob
			s.Delivery = domain.AtMostOnce
		}
		if i%4 == 1 {
			s.IdempotencyKey = fmt.Sprintf("bulk-%d", i)
		}
		s.Label = fmt.Sprintf("bulk %d ⏰", i)
		s.Payload = json.RawMessage(fmt.Sprintf(`{"i": %d,  "s":"é"}`, i))
		as[i] = e.build(s)
	}
	return as
}

// Every alarm comes back as CreateBatch would have stored it, payload byte for byte.
func testBulkRoundTrip(t *testing.T, e *env) {
	as := e.bulkMix(40)
	e.createMany(as)
	for _, a := range as {
		e.wantStored("after CreateMany", a)
	}
	if n := len(e.listAll(alice, "", 0)) + len(e.listAll(bob, "", 0)); n != len(as) {
		t.Errorf("List finds %d alarms after CreateMany of %d", n, len(as))
	}
}

// Each alarm's history is exactly the created event Create writes.
func testBulkCreatedEvents(t *testing.T, e *env) {
	as := e.bulkMix(10)
	e.createMany(as)
	for _, a := range as {
		evs := e.events(a.Owner, a.ID)
		if len(evs) != 1 {
			t.Errorf("alarm %s: events after CreateMany = %v, want [created]", a.ID, eventTypes(evs))
			continue
		}
		e.wantCreatedEvent("after CreateMany", evs[0], a)
	}
}

// Bulk-created alarms are claimed, oldest due first, and fired like any other.
func testBulkClaimable(t *testing.T, e *env) {
	var as []domain.Alarm
	for i := range 5 {
		as = append(as, e.build(e.onceIn(alice, -time.Duration(5-i)*time.Second)))
	}
	as = append(as, e.build(e.onceIn(alice, time.Hour))) // not due
	e.createMany(as)
	c := e.claim("w1", shortLease, 100)
	if got, want := alarmIDs(c.Alarms), alarmIDs(as[:5]); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("claimed %v, want the five due alarms oldest first %v", got, want)
	}
	ts := make([]domain.Transition, len(c.Alarms))
	for i, a := range c.Alarms {
		ts[i] = e.fire(a)
	}
	e.applyOK(ts...)
	if got := e.get(alice, as[0].ID); got.Status != domain.StatusFired {
		t.Errorf("status after firing = %s, want fired", got.Status)
	}
}

// A load larger than any one statement a store is likely to use (parameter limits,
// packet sizes), with large payloads, is stored whole.
func testBulkManyStatements(t *testing.T, e *env) {
	const n = 2500
	big := json.RawMessage(`"` + strings.Repeat("p", 4<<10) + `"`)
	as := make([]domain.Alarm, n)
	for i := range as {
		s := e.onceIn(alice, time.Duration(i)*time.Second)
		if i%10 == 0 {
			s.Payload = big
		}
		as[i] = e.build(s)
	}
	e.createMany(as)
	if got := len(e.listAll(alice, "", ports.MaxListLimit)); got != n {
		t.Fatalf("List finds %d alarms after CreateMany of %d", got, n)
	}
	for _, i := range []int{0, 1, n / 2, n - 10, n - 1} {
		e.wantStored(fmt.Sprintf("alarm %d", i), as[i])
	}
}

// A used id, a used idempotency key, or a key repeated within the batch is ErrConflict,
// and nothing of that batch is written.
func testBulkConflict(t *testing.T, e *env) {
	keyed := e.onceIn(alice, time.Hour)
	keyed.IdempotencyKey = "taken"
	existing := e.create(keyed)

	cases := map[string]func(as []domain.Alarm) []domain.Alarm{
		"stored id": func(as []domain.Alarm) []domain.Alarm {
			dup := as[2]
			dup.ID = existing.ID
			return append(as, dup)
		},
		"stored idempotency key": func(as []domain.Alarm) []domain.Alarm {
			s := e.onceIn(alice, time.Minute)
			s.IdempotencyKey = "taken"
			return append(as, e.build(s))
		},
		"key twice in the batch": func(as []domain.Alarm) []domain.Alarm {
			for range 2 {
				s := e.onceIn(bob, time.Minute)
				s.IdempotencyKey = "twice"
				as = append(as, e.build(s))
			}
			return as
		},
		"id twice in the batch": func(as []domain.Alarm) []domain.Alarm {
			return append(as, as[0])
		},
	}
	for name, spoil := range cases {
		var as []domain.Alarm
		for range 5 {
			as = append(as, e.build(e.onceIn(bob, time.Minute)))
		}
		err := e.bulk().CreateMany(e.ctx, spoil(as))
		wantErr(t, "CreateMany with a "+name, err, ports.ErrConflict)
		for _, a := range as[:5] {
			if _, err := e.store.Get(e.ctx, ports.OwnedBy(a.Owner), a.ID); err == nil {
				t.Errorf("%s: alarm %s of the refused batch was stored", name, a.ID)
			}
		}
	}
	e.wantStored("the alarm that held the id and key", existing)
	if n := len(e.listAll(bob, "", 0)); n != 0 {
		t.Errorf("bob has %d alarms after only refused batches, want 0", n)
	}
}

// An empty load writes nothing and is not an error.
func testBulkEmpty(t *testing.T, e *env) {
	if err := e.bulk().CreateMany(e.ctx, nil); err != nil {
		t.Errorf("CreateMany(nil) = %v, want nil", err)
	}
	if err := e.bulk().CreateMany(e.ctx, []domain.Alarm{}); err != nil {
		t.Errorf("CreateMany(empty) = %v, want nil", err)
	}
}
