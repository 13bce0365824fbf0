package chronos_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// start runs a node over a fresh memory store with h and fast timings.
func start(t *testing.T, h chronos.HandlerFunc, cfg chronos.Config) (*chronos.Node, *memory.Store) {
	t.Helper()
	store := memory.New(nil)
	cfg.Handler = h
	if cfg.Backoff == (domain.Backoff{}) {
		cfg.Backoff = domain.Backoff{Base: 50 * time.Millisecond, Cap: 100 * time.Millisecond}
	}
	return runNode(t, store, cfg), store
}

// runNode starts a node over store with cfg (a 20 ms tick unless it sets one), stopped
// at t's end.
func runNode(t *testing.T, store *memory.Store, cfg chronos.Config) *chronos.Node {
	t.Helper()
	if cfg.Tick == 0 {
		cfg.Tick = 20 * time.Millisecond
	}
	node, err := chronos.New(store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := node.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return node
}

func createDue(t *testing.T, n *chronos.Node, maxFailures int) domain.Alarm {
	t.Helper()
	zero := time.Duration(0)
	a, _, err := n.Alarms().Create(t.Context(), domain.Spec{Owner: "o", Kind: domain.KindOnce, Delay: &zero, MaxFailures: maxFailures})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func get(t *testing.T, n *chronos.Node, id string) domain.Alarm {
	t.Helper()
	a, err := n.Admin().Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A handler still running at its delivery timeout is a failed attempt at once, with a
// last_error saying so; what it returns later changes nothing.
func TestHandlerTimeoutIsAFailedAttempt(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	n, _ := start(t, func(ctx context.Context, w domain.Wake) error {
		if calls.Add(1) == 1 {
			<-ctx.Done()
			if !errors.Is(context.Cause(ctx), chronos.ErrWakeTimeout) {
				t.Errorf("the handler's context ended with %v, want ErrWakeTimeout", context.Cause(ctx))
			}
			<-release // outlive the wake
			return nil
		}
		return nil
	}, chronos.Config{DeliveryTimeout: 200 * time.Millisecond, Lease: 5 * time.Second})
	a := createDue(t, n, 1)
	waitFor(t, "the attempt to fail", func() bool { return get(t, n, a.ID).Status == domain.StatusFailed })
	if got := get(t, n, a.ID); !strings.Contains(got.LastError, "delivery timeout") {
		t.Errorf("last_error = %q, want it to say the delivery timeout passed", got.LastError)
	}
	close(release) // the late nil must not turn the failure into a delivery
	time.Sleep(100 * time.Millisecond)
	if got := get(t, n, a.ID); got.Status != domain.StatusFailed || n.Stats().Delivered != 0 {
		t.Errorf("after the late return: %s, %d delivered", got.Status, n.Stats().Delivered)
	}
}

// A handler that extends its lease may run past its original timeout, and its wake is
// delivered once.
func TestExtendLeaseKeepsAWakeAlive(t *testing.T) {
	n, _ := start(t, func(ctx context.Context, w domain.Wake) error {
		if err := chronos.ExtendLease(ctx, 2*time.Second); err != nil {
			return err
		}
		select {
		case <-time.After(600 * time.Millisecond): // three times the original timeout
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}, chronos.Config{DeliveryTimeout: 200 * time.Millisecond, Lease: time.Second})
	a := createDue(t, n, 1)
	waitFor(t, "the long wake delivered", func() bool { return get(t, n, a.ID).Status == domain.StatusFired })
	if st := n.Stats(); st.Delivered != 1 || st.Failed != 0 || st.Stale != 0 {
		t.Errorf("stats %+v, want one delivery, nothing failed or stale", st)
	}
	if err := chronos.ExtendLease(t.Context(), time.Second); err == nil {
		t.Error("ExtendLease outside a wake did not refuse")
	}
}

// A handler whose alarm was taken from it (an admin cancel releases the lease) learns
// it from ExtendLease, its context ends, and its outcome changes nothing.
func TestExtendLeaseAfterTheLeaseWasLost(t *testing.T) {
	var node atomic.Pointer[chronos.Node]
	lost := make(chan error, 1)
	n, _ := start(t, func(ctx context.Context, w domain.Wake) error {
		if _, err := node.Load().Admin().Cancel(ctx, w.AlarmID, "tok_test"); err != nil {
			t.Errorf("cancel: %v", err)
		}
		err := chronos.ExtendLease(ctx, time.Second)
		lost <- err
		if ctx.Err() == nil {
			t.Error("the context is still live after the lease was lost")
		}
		return nil
	}, chronos.Config{DeliveryTimeout: time.Second, Lease: 5 * time.Second})
	node.Store(n)
	a := createDue(t, n, 1)
	if err := <-lost; !errors.Is(err, ports.ErrLeaseLost) {
		t.Fatalf("ExtendLease after the cancel: %v, want ErrLeaseLost", err)
	}
	waitFor(t, "the stale outcome counted", func() bool { return n.Stats().Stale == 1 })
	if got := get(t, n, a.ID); got.Status != domain.StatusCancelled || got.FailureCount != 0 {
		t.Errorf("the alarm is %s with %d failures; the lost wake's outcome must change nothing", got.Status, got.FailureCount)
	}
}

// A panicking handler is a failed attempt, and the node goes on.
func TestHandlerPanicIsAFailedAttempt(t *testing.T) {
	var calls atomic.Int32
	n, _ := start(t, func(ctx context.Context, w domain.Wake) error {
		if calls.Add(1) == 1 {
			panic("boom")
		}
		return nil
	}, chronos.Config{})
	a := createDue(t, n, 3)
	waitFor(t, "the retry delivered", func() bool { return get(t, n, a.ID).Status == domain.StatusFired })
	evs, _ := n.Admin().Events(t.Context(), a.ID, 0)
	if len(evs) < 2 || evs[1].Type != domain.EventRetryScheduled || !strings.Contains(evs[1].Message, "handler panicked: boom") {
		t.Errorf("history %+v, want a retry scheduled after the panic", evs)
	}
}

// New refuses what cannot work, saying why.
func TestNewRefuses(t *testing.T) {
	h := chronos.HandlerFunc(func(context.Context, domain.Wake) error { return nil })
	for name, c := range map[string]struct {
		store ports.Store
		cfg   chronos.Config
		want  string
	}{
		"no store":            {nil, chronos.Config{Handler: h}, "store"},
		"no delivery":         {memory.New(nil), chronos.Config{}, "Handler"},
		"both":                {memory.New(nil), chronos.Config{Handler: h, Waker: noWaker{}}, "not both"},
		"lease too short":     {memory.New(nil), chronos.Config{Handler: h, Lease: time.Second, DeliveryTimeout: 2 * time.Second}, "lease"},
		"retention too short": {memory.New(nil), chronos.Config{Handler: h, Retention: time.Second}, "retention"},
		"negative quota":      {memory.New(nil), chronos.Config{Handler: h, MaxActiveAlarmsPerOwner: -1}, "MaxActiveAlarmsPerOwner"},
		"negative rate":       {memory.New(nil), chronos.Config{Handler: h, RateLimit: -1}, "RateLimit"},
		"relative public url": {memory.New(nil), chronos.Config{Handler: h, PublicURL: "chronos.example"}, "PublicURL"},
	} {
		_, err := chronos.New(c.store, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %s", name, err, c.want)
		}
	}
}

// Handler serves the HTTP API of the node, with its tokens.
func TestNodeHandlerServesTheAPI(t *testing.T) {
	n, _ := start(t, func(context.Context, domain.Wake) error { return nil }, chronos.Config{Dashboard: true})
	plain, _, err := n.Tokens().Create(t.Context(), "shop", domain.ScopeOwner)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(n.Handler())
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/alarms", strings.NewReader(`{"kind":"once","delay_seconds":3600}`))
	req.Header.Set("Authorization", "Bearer "+plain)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("create over HTTP: %v %v", err, res)
	}
	res.Body.Close()
	if res, err := http.Get(srv.URL + "/ui/login"); err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("the dashboard: %v %v", err, res)
	}
}

// The limits a Config sets hold the node's use cases and its Handler: the quota every
// create (in Go too), the rate every request with a token; the zero Config sets none.
func TestNodeLimits(t *testing.T) {
	n, _ := start(t, func(context.Context, domain.Wake) error { return nil }, chronos.Config{MaxActiveAlarmsPerOwner: 2, RateLimit: 1})
	hour := time.Hour
	spec := domain.Spec{Owner: "shop", Kind: domain.KindOnce, Delay: &hour}
	for range 2 {
		if _, _, err := n.Alarms().Create(t.Context(), spec); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := n.Alarms().Create(t.Context(), spec); !errors.Is(err, domain.ErrQuotaExceeded) {
		t.Errorf("a third create with a quota of 2: %v, want ErrQuotaExceeded", err)
	}
	plain, _, err := n.Tokens().Create(t.Context(), "shop", domain.ScopeOwner)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(n.Handler())
	defer srv.Close()
	var got []string
	for range 5 { // a burst of 2, then 1 a second: some of the last 3 refused for the rate
		req, _ := http.NewRequest("POST", srv.URL+"/v1/alarms", strings.NewReader(`{"kind":"once","delay_seconds":3600}`))
		req.Header.Set("Authorization", "Bearer "+plain)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Code string } `json:"error"`
		}
		_ = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		got = append(got, fmt.Sprint(res.StatusCode, " ", body.Error.Code))
	}
	want := []string{"429 quota_exceeded", "429 quota_exceeded"}
	if !slices.Equal(got[:2], want) || !slices.Contains(got[2:], "429 rate_limited") {
		t.Errorf("five creates over HTTP at the quota with a rate of 1: %v, want %v, then rate_limited", got, want)
	}

	free, _ := start(t, func(context.Context, domain.Wake) error { return nil }, chronos.Config{})
	for i := range 50 {
		if _, _, err := free.Alarms().Create(t.Context(), spec); err != nil {
			t.Fatalf("create %d on a node without limits: %v", i+1, err)
		}
	}
}

type noWaker struct{}

func (noWaker) Wake(context.Context, domain.Wake) error { return nil }
