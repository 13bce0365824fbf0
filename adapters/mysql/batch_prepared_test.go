package mysql

import (
	"fmt"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// A dispatcher's batch statements (the claim, its lease stamp, Apply's UPDATE-JOIN,
// the events INSERT) run prepared, with binary parameters, from the store's statement
// cache once a statement of that text has been seen; their sizes are bucketed
// (buckets.go), so a handful of texts covers every batch.
// This runs three batches of 100 on one connection: the first as text, the second
// prepared, the third prepared with a stale transition (the optimistic UPDATE falls
// short, is rolled back, and the batch is redone under locks), and checks every row and
// event.
func TestBatchStatementsRunPrepared(t *testing.T) {
	s, _ := openTestStore(t, Options{Clock: fixedClock(testNow)})
	ctx := t.Context()
	// One connection, so SHOW SESSION STATUS sees the store's own statements. Preparing
	// happens between transactions, so one connection must be enough.
	s.db.SetMaxOpenConns(1)
	executed := func() int { return statusCounter(t, s.db, "SHOW SESSION STATUS LIKE 'Com_stmt_execute'") }

	const batch, rounds = 100, 3
	var as []domain.Alarm
	for i := range batch * rounds {
		as = append(as, newDueAlarm(t, "o", fmt.Sprintf(`{"i": %d}`, i)))
	}
	if err := s.CreateMany(ctx, as); err != nil {
		t.Fatal(err)
	}
	now := testNow.Add(time.Second)
	policy := domain.Policy{Backoff: domain.DefaultBackoff}
	var clean, failed []domain.Transition
	var victim string
	before := 0
	for round := range rounds {
		if round == 1 {
			before = executed()
		}
		c, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w", Lease: time.Minute, Batch: batch})
		if err != nil || len(c.Alarms) != batch {
			t.Fatalf("round %d: claimed %d, %v; want %d", round, len(c.Alarms), err, batch)
		}
		var ts []domain.Transition
		for _, a := range c.Alarms {
			if round < 2 {
				ts = append(ts, domain.Decide(domain.Begin(a, now, policy), domain.Delivered(), now, policy))
			} else {
				ts = append(ts, domain.Decide(domain.Begin(a, now, policy), domain.DeliveryFailed("HTTP 503"), now, policy))
			}
		}
		want := ports.ApplyResult{Applied: batch}
		if round == 2 {
			// Its lease was taken over meanwhile, as far as this transition knows.
			ts[17].Fence.ClaimedAt = ts[17].Fence.ClaimedAt.Add(time.Microsecond)
			victim = ts[17].AlarmID
			want = ports.ApplyResult{Applied: batch - 1, Stale: []string{victim}}
		}
		res, err := s.Apply(ctx, ts)
		if err != nil || res.Applied != want.Applied || len(res.Stale) != len(want.Stale) || len(res.Stale) == 1 && res.Stale[0] != victim {
			t.Fatalf("round %d: Apply = %+v, %v; want %+v", round, res, err, want)
		}
		if round < 2 {
			clean = append(clean, ts...)
		} else {
			failed = ts
		}
	}
	if executed() == before {
		t.Error("no prepared statement was executed: the batch statements all ran as text")
	}

	for _, tr := range clean {
		got, err := s.Get(ctx, ports.OwnedBy("o"), tr.AlarmID)
		if err != nil || got.Status != domain.StatusFired || got.Claimed() {
			t.Fatalf("alarm %s: %+v, %v; want fired, unleased", tr.AlarmID, got, err)
		}
		evs, err := s.Events(ctx, ports.OwnedBy("o"), tr.AlarmID, 0)
		if err != nil || len(evs) != 2 || evs[1].Type != domain.EventFired {
			t.Fatalf("alarm %s events: %+v, %v; want created, fired", tr.AlarmID, evs, err)
		}
	}
	for _, tr := range failed {
		got, err := s.Get(ctx, ports.OwnedBy("o"), tr.AlarmID)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := s.Events(ctx, ports.OwnedBy("o"), tr.AlarmID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if tr.AlarmID == victim {
			if got.FailureCount != 0 || !got.Claimed() || len(evs) != 1 {
				t.Fatalf("stale alarm %s was written: %+v, %d events", tr.AlarmID, got, len(evs))
			}
			continue
		}
		if got.FailureCount != 1 || got.LastError != "HTTP 503" || got.Claimed() || len(evs) != 1+len(tr.Events) {
			t.Fatalf("retried alarm %s: %+v, %d events; want one failure, unleased, %d events", tr.AlarmID, got, len(evs), 1+len(tr.Events))
		}
	}
}
