package contract

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var batchCreateCases = []testCase{
	{"RoundTripInOrder", testBatchRoundTrip},
	{"KeyRepeatedInTheBatch", testBatchKeyRepeated},
	{"KeyAlreadyStored", testBatchKeyStored},
	{"IDConflictFailsOnlyItsItem", testBatchIDConflict},
	{"ConcurrentBatchesOneRowPerKey", testBatchConcurrent},
	{"CreatedAlarmsAreClaimable", testBatchClaimable},
	{"Empty", testBatchEmpty},
}

func (e *env) createBatch(as ...domain.Alarm) []ports.CreateResult {
	e.t.Helper()
	rs, err := e.store.CreateBatch(e.ctx, as)
	if err != nil {
		e.t.Fatalf("CreateBatch: %v", err)
	}
	if len(rs) != len(as) {
		e.t.Fatalf("CreateBatch returned %d results for %d alarms", len(rs), len(as))
	}
	return rs
}

func keyed(s domain.Spec, key string) domain.Spec {
	s.IdempotencyKey = key
	return s
}

// Every alarm comes back as CreateBatch would return it, in the order given, stored with
// its created event.
func testBatchRoundTrip(t *testing.T, e *env) {
	as := []domain.Alarm{
		e.build(e.onceIn(alice, time.Hour)),
		e.build(cronSpec(alice, "*/5 * * * *", "Europe/Paris")),
		e.build(keyed(e.onceIn(bob, 2*time.Hour), "k")),
	}
	as[0].Payload = []byte(`{"b": 1,  "a": [true]}`)
	for i, r := range e.createBatch(as...) {
		if r.Err != nil || r.Deduped {
			t.Fatalf("item %d: %+v, want created", i, r)
		}
		e.wantAlarm(fmt.Sprintf("item %d", i), r.Alarm, as[i])
		e.wantAlarm(fmt.Sprintf("item %d read back", i), e.get(as[i].Owner, as[i].ID), as[i])
		evs := e.events(as[i].Owner, as[i].ID)
		if len(evs) != 1 || evs[0].Type != domain.EventCreated {
			t.Errorf("item %d: history %v, want one created event", i, evs)
		}
	}
}

// A key twice in one batch makes one alarm; the later item gets it, deduped.
func testBatchKeyRepeated(t *testing.T, e *env) {
	first := e.build(keyed(e.onceIn(alice, time.Hour), "same"))
	second := e.build(keyed(e.onceIn(alice, 3*time.Hour), "same"))
	other := e.build(keyed(e.onceIn(bob, time.Hour), "same")) // another owner's key
	rs := e.createBatch(first, second, other)
	if rs[0].Err != nil || rs[0].Deduped || rs[0].Alarm.ID != first.ID {
		t.Errorf("first: %+v, want it created", rs[0])
	}
	if rs[1].Err != nil || !rs[1].Deduped || rs[1].Alarm.ID != first.ID {
		t.Errorf("second: %+v, want the first alarm, deduped", rs[1])
	}
	if rs[2].Err != nil || rs[2].Deduped || rs[2].Alarm.ID != other.ID {
		t.Errorf("another owner's item: %+v, want it created", rs[2])
	}
	if all := e.listAll(alice, "", 10); len(all) != 1 {
		t.Errorf("alice has %d alarms, want 1", len(all))
	}
}

// An owner's key already stored gives the stored alarm, whatever the item says.
func testBatchKeyStored(t *testing.T, e *env) {
	stored := e.create(keyed(e.onceIn(alice, time.Hour), "k1"))
	again := e.build(keyed(e.onceIn(alice, 5*time.Hour), "k1"))
	fresh := e.build(keyed(e.onceIn(alice, time.Hour), "k2"))
	rs := e.createBatch(again, fresh)
	if rs[0].Err != nil || !rs[0].Deduped {
		t.Fatalf("item with a stored key: %+v, want deduped", rs[0])
	}
	e.wantAlarm("deduped item", rs[0].Alarm, stored)
	if rs[1].Err != nil || rs[1].Deduped {
		t.Errorf("item with a new key: %+v, want created", rs[1])
	}
	if _, err := e.store.Get(e.ctx, ports.OwnedBy(alice), again.ID); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("the deduped item's own id was stored (%v)", err)
	}
}

// An id that exists fails its item with ErrConflict; the others are created.
func testBatchIDConflict(t *testing.T, e *env) {
	existing := e.create(e.onceIn(alice, time.Hour))
	clash := e.build(e.onceIn(alice, 2*time.Hour))
	clash.ID = existing.ID
	ok := e.build(e.onceIn(alice, time.Hour))
	rs := e.createBatch(clash, ok)
	wantErr(t, "item with a taken id", rs[0].Err, ports.ErrConflict)
	if rs[1].Err != nil || rs[1].Deduped {
		t.Errorf("the other item: %+v, want created", rs[1])
	}
	e.wantAlarm("the existing alarm", e.get(alice, existing.ID), existing)
	if evs := e.events(alice, existing.ID); len(evs) != 1 {
		t.Errorf("the existing alarm has %d events, want its own created event only", len(evs))
	}
}

// Batches racing with the same keys make one row per key, and every item gets it.
func testBatchConcurrent(t *testing.T, e *env) {
	const batches, keys = 6, 5
	results := make([][]ports.CreateResult, batches)
	var wg sync.WaitGroup
	for b := range batches {
		as := make([]domain.Alarm, keys)
		for k := range keys {
			as[k] = e.build(keyed(e.onceIn(alice, time.Hour), fmt.Sprintf("key-%d", k)))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs, err := e.store.CreateBatch(e.ctx, as)
			if err != nil {
				t.Errorf("batch %d: %v", b, err)
			}
			results[b] = rs
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if all := e.listAll(alice, "", 100); len(all) != keys {
		t.Fatalf("%d alarms for %d keys", len(all), keys)
	}
	for k := range keys {
		id, created := "", 0
		for b := range batches {
			r := results[b][k]
			if r.Err != nil {
				t.Fatalf("batch %d key %d: %v", b, k, r.Err)
			}
			if !r.Deduped {
				created++
			}
			if id == "" {
				id = r.Alarm.ID
			} else if r.Alarm.ID != id {
				t.Errorf("key %d: batches got alarms %s and %s", k, id, r.Alarm.ID)
			}
		}
		if created != 1 {
			t.Errorf("key %d: %d items say they created it, want 1", k, created)
		}
	}
}

// What a batch creates is due and claimable like any alarm.
func testBatchClaimable(t *testing.T, e *env) {
	a := e.build(e.onceIn(alice, 0))
	e.createBatch(a)
	e.claimOnly("w1", time.Minute, a.ID)
}

func testBatchEmpty(t *testing.T, e *env) {
	if rs := e.createBatch(); len(rs) != 0 {
		t.Errorf("an empty batch returned %d results", len(rs))
	}
}
