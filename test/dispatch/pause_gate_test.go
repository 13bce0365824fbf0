package dispatch_test

import (
	"context"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app/chores"
	"github.com/chronoshq/chronos/domain"
)

// While the cluster-wide gate is closed a dispatcher claims nothing, whichever node
// closed it; within a tick of a resume every due alarm is delivered; a wake already in
// flight when the pause came finishes.
func TestPauseGateHoldsAndReleasesWakes(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	r := newReceiver(t, func(int64, wake) int { time.Sleep(200 * time.Millisecond); return 200 })
	cfg := testConfig("w1")
	gate := chores.NewDispatchGate(e.store, cfg.Tick, nil, nil)
	gateCtx, stopGate := context.WithCancel(ctx)
	defer stopGate()
	go gate.Run(gateCtx)
	cfg.Gate = gate
	e.start(t, e.waker(t, r), cfg)

	inFlight := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0))})
	eventually(t, 3*time.Second, "the first wake in flight", func() bool { return len(r.received()) == 1 })

	// Another node (its own gate on the same store) pauses the cluster.
	other := chores.NewDispatchGate(e.store, cfg.Tick, nil, nil)
	if st, err := other.Set(ctx, true, "tok_ops", time.Now()); err != nil || !st.Paused {
		t.Fatalf("pausing: %+v %v", st, err)
	}
	eventually(t, 3*time.Second, "the wake in flight at the pause finished", func() bool {
		return e.get(t, inFlight.ID).Status == domain.StatusFired
	})
	time.Sleep(3 * cfg.Tick) // the node has read the gate
	var held []string
	for range 5 {
		held = append(held, e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0))}).ID)
	}
	time.Sleep(500 * time.Millisecond)
	if n := len(r.received()); n != 1 {
		t.Fatalf("%d wakes delivered while paused, want only the one in flight before", n-1)
	}
	if !gate.State().Paused {
		t.Error("the node's gate does not read paused")
	}

	if st, err := other.Set(ctx, false, "tok_ops", time.Now()); err != nil || st.Paused {
		t.Fatalf("resuming: %+v %v", st, err)
	}
	eventually(t, 5*time.Second, "every held alarm delivered after resume", func() bool {
		for _, id := range held {
			if e.get(t, id).Status != domain.StatusFired {
				return false
			}
		}
		return true
	})
	if n := len(r.received()); n != 6 {
		t.Errorf("%d wakes in all, want 6 (each alarm once)", n)
	}
}
