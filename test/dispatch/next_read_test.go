package dispatch_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// nextReadStore is the real store, answering in every partial claim what NextDue would
// (Claimed.NextRead, as the MySQL store does), and counting the dispatcher's NextDue
// calls.
type nextReadStore struct {
	ports.Store
	nextDues atomic.Int64
}

func (s *nextReadStore) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	c, err := s.Store.ClaimDue(ctx, p)
	if err != nil || len(c.Alarms) == p.Batch {
		return c, err
	}
	next, ok, err := s.Store.NextDue(ctx)
	if err != nil {
		return ports.Claimed{}, err
	}
	c.NextRead = true
	if ok {
		c.Next = next
	}
	return c, nil
}

func (s *nextReadStore) NextDue(ctx context.Context) (time.Time, bool, error) {
	s.nextDues.Add(1)
	return s.Store.NextDue(ctx)
}

// A claim that read the next due time spares the dispatcher its NextDue call, and the
// dispatcher sleeps until that time, not a whole tick.
func TestClaimThatReadNextDueSparesNextDue(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, nil)
	// Created before the dispatcher starts, and it gets hints of its own, so no hint
	// wakes it: only the claim's Next can.
	a := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(300 * time.Millisecond)})
	store := &nextReadStore{Store: e.store}
	cfg := testConfig("next-read")
	cfg.Tick = time.Minute
	d, err := app.NewDispatcher(store, e.waker(t, r), e.sclock, app.NewHints(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = d.Run(ctx) }()
	eventually(t, 10*time.Second, "fired at its time, within the minute's tick", func() bool { return e.get(t, a.ID).Status == domain.StatusFired })
	if late := e.get(t, a.ID).LastFiredAt.Sub(a.NextFireAt); late > 5*time.Second {
		t.Errorf("fired %v after its due time: the dispatcher slept past the claim's Next", late)
	}
	if n := store.nextDues.Load(); n != 0 {
		t.Errorf("the dispatcher called NextDue %d times; every partial claim had read it", n)
	}
}
