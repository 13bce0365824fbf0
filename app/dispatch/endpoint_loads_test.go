package dispatch_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/domain"
)

// waitForLoads polls the router's loads until ok accepts them, and fails the test after
// a few seconds.
func waitForLoads(t *testing.T, e *routerEnv, ok func([]domain.EndpointLoad) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		loads := e.router.Loads(10)
		if ok(loads) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("loads never came to what the test waits for: %+v", loads)
		}
		time.Sleep(time.Millisecond)
	}
}

// An endpoint with wakes queued for room, or with as many in flight as its
// max_in_flight, is listed, busiest first, with the wakes it held back; an endpoint
// with room to spare, or without a cap, is not.
func TestRouterLoadsListsEndpointsOutOfRoom(t *testing.T) {
	e := newRouterEnv(dispatch.EndpointRouterConfig{QueueWait: 5 * time.Second},
		domain.Endpoint{Owner: "o", Name: "slow", URL: "http://slow", MaxInFlight: 2},
		domain.Endpoint{Owner: "o", Name: "full", URL: "http://full", MaxInFlight: 1},
		domain.Endpoint{Owner: "o", Name: "roomy", URL: "http://roomy", MaxInFlight: 5},
		domain.Endpoint{Owner: "o", Name: "uncapped", URL: "http://uncapped"})
	release := make(chan struct{})
	e.answer = func() error { <-release; return nil }
	var wg sync.WaitGroup
	for _, ep := range []string{"slow", "slow", "slow", "slow", "full", "roomy", "uncapped"} {
		wg.Go(func() {
			if err := e.wake(t, ep); err != nil {
				t.Errorf("a wake to %s: %v, want it delivered once room came", ep, err)
			}
		})
	}
	waitForLoads(t, e, func(loads []domain.EndpointLoad) bool {
		e.mu.Lock()
		sent := len(e.got)
		e.mu.Unlock()
		return sent == 5 && len(loads) == 2 && loads[0].Queued == 2
	})
	// slow's queue holds as many as its max_in_flight: one more is held back.
	if _, held := deferFor(e.wake(t, "slow")); !held {
		t.Fatal("a wake finding slow's queue full was not held back")
	}
	want := []domain.EndpointLoad{
		{Owner: "o", Name: "slow", Queued: 2, InFlight: 2, HeldBack: 1},
		{Owner: "o", Name: "full", Queued: 0, InFlight: 1},
	}
	if got := e.router.Loads(10); !reflect.DeepEqual(got, want) {
		t.Errorf("Loads(10) = %+v, want %+v", got, want)
	}
	if got := e.router.Loads(1); !reflect.DeepEqual(got, want[:1]) {
		t.Errorf("Loads(1) = %+v, want only the busiest, %+v", got, want[:1])
	}
	// The dispatcher delivering through the router reports them at every heartbeat.
	d, err := dispatch.New(nil, e.router, app.NewStoreClock(), nil, dispatch.Config{
		Worker: "w", Tick: time.Second, Batch: 1, Concurrency: 1, DeliveryTimeout: time.Second, Lease: time.Minute,
		Policy: domain.Policy{Backoff: domain.Backoff{Base: time.Second, Cap: time.Second}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.WorkerStats().Endpoints; !reflect.DeepEqual(got, want) {
		t.Errorf("the dispatcher's WorkerStats().Endpoints = %+v, want %+v", got, want)
	}
	close(release)
	wg.Wait()
	if got := e.router.Loads(10); len(got) != 0 {
		t.Errorf("Loads after every wake finished = %+v, want none", got)
	}
}

// A wake waiting for its turn under rate_per_second is queued (and not in flight); one
// whose turn is too far off is held back, and counted.
func TestRouterLoadsCountsWakesPacedAndHeldBack(t *testing.T) {
	e := newRouterEnv(dispatch.EndpointRouterConfig{QueueWait: 5 * time.Second},
		domain.Endpoint{Owner: "o", Name: "paced", URL: "http://paced", RatePerSecond: 1})
	if err := e.wake(t, "paced"); err != nil {
		t.Fatalf("the first wake, within the burst: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- e.router.Wake(ctx, domain.Wake{AlarmID: "a", Owner: "o", Endpoint: "paced"}) }()
	waitForLoads(t, e, func(loads []domain.EndpointLoad) bool { return len(loads) == 1 && loads[0].Queued == 1 })
	// The next turn is two seconds off, beyond the second a wake waits for it.
	if _, held := deferFor(e.wake(t, "paced")); !held {
		t.Fatal("a third wake at 1/s was not held back")
	}
	want := []domain.EndpointLoad{{Owner: "o", Name: "paced", Queued: 1, InFlight: 0, HeldBack: 1}}
	if got := e.router.Loads(10); !reflect.DeepEqual(got, want) {
		t.Errorf("Loads = %+v, want %+v", got, want)
	}
	cancel() // the waiting wake gives up: held back too, and no longer queued
	if _, held := deferFor(<-done); !held {
		t.Error("the wake given up while waiting for its turn was not held back")
	}
	if got := e.router.Loads(10); len(got) != 0 {
		t.Errorf("Loads after the queue emptied = %+v, want none", got)
	}
}
