package dispatch_test

import (
	"context"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app/chores"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// A retention pass on a real store deletes the fired and cancelled alarms older than the
// retention with their events, keeps live and recent ones, caps a busy series' history,
// and counts what it deleted; a second node's pass meanwhile does nothing.
func TestRetentionPass(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	fired, cancelled := e.oldTerminal(t, 30), e.oldCancelled(t, 20)
	live := e.create(t, domain.Spec{Owner: "o", Kind: domain.KindOnce, Delay: ptr(100 * 24 * time.Hour)})

	e.clock.Advance(2 * time.Hour)
	recent := e.oldTerminal(t, 1) // terminal, but within the retention

	r := e.retention(t, "node-a", time.Hour)
	other := e.retention(t, "node-b", time.Hour)
	pass, err := r.RunOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !pass.Held || pass.Alarms != 50 {
		t.Fatalf("pass = %+v, want the lease and 50 alarms deleted", pass)
	}
	if alarms, events := r.Deleted(); alarms != 50 || events < 50 {
		t.Errorf("counted %d alarms and %d events, want 50 and their stored events (>= 50: each fired or cancelled)", alarms, events)
	}
	for _, id := range append(fired, cancelled...) {
		if _, err := e.store.Get(ctx, ports.OwnedBy("o"), id); err == nil {
			t.Fatalf("expired alarm %s is still there", id)
		}
	}
	for _, id := range append(recent, live.ID) {
		if _, err := e.store.Get(ctx, ports.OwnedBy("o"), id); err != nil {
			t.Errorf("alarm %s was deleted: %v", id, err)
		}
	}
	// The cluster's pass was just made: the other node's regular look finds it not due.
	if p, err := other.RunDue(ctx); err != nil || p.Held {
		t.Errorf("a second node's due pass right after = %+v, %v; want nothing (not due)", p, err)
	}
	// While a pass runs (node-a holds the lease), no other node runs one, even forced.
	if ok, err := e.store.AcquireLease(ctx, chores.RetentionLease, "node-a", time.Minute); err != nil || !ok {
		t.Fatalf("holding the lease for node-a: %t %v", ok, err)
	}
	if p, err := other.RunOnce(ctx); err != nil || p.Held {
		t.Errorf("a second node's pass = %+v, %v; want nothing while node-a holds the lease", p, err)
	}
	if err := e.store.ReleaseLease(ctx, chores.RetentionLease, "node-a"); err != nil {
		t.Fatal(err)
	}
	// Once it is free, an admin's run works on any node, and it is the cluster's last.
	if p, err := other.RunOnce(ctx); err != nil || !p.Held {
		t.Errorf("node-b's pass after node-a's = %+v, %v; want it run", p, err)
	}
	if last, ok, err := other.LastRun(ctx); err != nil || !ok || last.Node != "node-b" {
		t.Errorf("the cluster's last pass = %+v (%t, %v), want node-b's", last, ok, err)
	}
}

// oldTerminal makes n fired alarms: due now, claimed and delivered.
func (e *env) oldTerminal(t *testing.T, n int) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for range n {
		ids = append(ids, e.create(t, domain.Spec{Owner: "o", Kind: domain.KindOnce, Delay: ptr(time.Duration(0))}).ID)
	}
	c, err := e.store.ClaimDue(ctx, ports.ClaimParams{Worker: "w", Lease: time.Minute, Batch: n})
	if err != nil || len(c.Alarms) != n {
		t.Fatalf("claim: %d alarms, %v; want %d", len(c.Alarms), err, n)
	}
	var ts []domain.Transition
	for _, a := range c.Alarms {
		ts = append(ts, domain.Decide(domain.Begin(a, c.Now, domain.Policy{}), domain.Delivered(), c.Now, domain.Policy{Backoff: domain.DefaultBackoff}))
	}
	if _, err := e.store.Apply(ctx, ts); err != nil {
		t.Fatal(err)
	}
	return ids
}

// oldCancelled makes n cancelled alarms.
func (e *env) oldCancelled(t *testing.T, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		a := e.create(t, domain.Spec{Owner: "o", Kind: domain.KindOnce, Delay: ptr(time.Hour)})
		if _, err := e.alarms.Cancel(context.Background(), "o", a.ID); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	return ids
}

func (e *env) retention(t *testing.T, holder string, keep time.Duration) *chores.Retention {
	t.Helper()
	r, err := chores.NewRetention(e.store, chores.RetentionConfig{Retention: keep, EventsPerAlarm: 10, Holder: holder}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Retention refuses a policy that would delete history before anyone could read it.
func TestRetentionConfigRefusals(t *testing.T) {
	for _, c := range []chores.RetentionConfig{
		{Retention: -time.Hour, Holder: "n"},
		{Retention: time.Second, Holder: "n"},
		{Retention: time.Hour, EventsPerAlarm: -1, Holder: "n"},
		{Retention: time.Hour},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v was accepted", c)
		}
	}
	if err := (chores.RetentionConfig{}).Validate(); err != nil {
		t.Errorf("retention off was refused: %v", err)
	}
}
