package dispatch_test

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// endpointsFake is an EndpointSource: the router's reads, not a store under test.
type endpointsFake struct {
	mu      sync.Mutex
	eps     map[string]domain.Endpoint // by name, owner "o"
	version string
}

func (f *endpointsFake) GetEndpoint(_ context.Context, owner, name string) (domain.Endpoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.eps[name]
	if !ok || owner != "o" {
		return domain.Endpoint{}, ports.ErrNotFound
	}
	return e, nil
}

func (f *endpointsFake) GetState(context.Context, string) (ports.State, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return ports.State{Value: f.version}, f.version != "", nil
}

func (f *endpointsFake) set(e domain.Endpoint) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.eps[e.Name] = e
	f.version += "x"
}

// recorder is a waker that records the URL each wake went to, answering with answer.
type recorder struct {
	url    string
	answer func() error
	got    *[]string
	mu     *sync.Mutex
}

func (r recorder) Wake(ctx context.Context, w domain.Wake) error {
	r.mu.Lock()
	*r.got = append(*r.got, r.url)
	r.mu.Unlock()
	if r.answer != nil {
		return r.answer()
	}
	return nil
}

type routerEnv struct {
	src    *endpointsFake
	router *dispatch.EndpointRouter
	mu     sync.Mutex
	got    []string
	answer func() error
}

func newRouterEnv(cfg dispatch.EndpointRouterConfig, eps ...domain.Endpoint) *routerEnv {
	e := &routerEnv{src: &endpointsFake{eps: map[string]domain.Endpoint{}}}
	for _, ep := range eps {
		e.src.eps[ep.Name] = ep
	}
	answer := func() error {
		e.mu.Lock()
		a := e.answer
		e.mu.Unlock()
		if a == nil {
			return nil
		}
		return a()
	}
	def := recorder{url: "default", got: &e.got, mu: &e.mu}
	cfg.Refresh = time.Millisecond
	e.router = dispatch.NewEndpointRouter(def, e.src, func(ep domain.Endpoint) (ports.Waker, error) {
		return recorder{url: ep.URL, answer: answer, got: &e.got, mu: &e.mu}, nil
	}, cfg)
	return e
}

func (e *routerEnv) wake(t *testing.T, endpoint string) error {
	t.Helper()
	return e.router.Wake(t.Context(), domain.Wake{AlarmID: "a", Owner: "o", Endpoint: endpoint})
}

func deferFor(err error) (time.Duration, bool) {
	d, _, ok := heldBack(err)
	return d, ok
}

// heldBack reads a ports.Deferral: its wait and reason.
func heldBack(err error) (wait time.Duration, reason string, ok bool) {
	var d ports.Deferral
	if errors.As(err, &d) {
		return d.DeferFor(), d.DeferReason(), true
	}
	return 0, "", false
}

func TestRouterSendsEachWakeToItsEndpoint(t *testing.T) {
	e := newRouterEnv(dispatch.EndpointRouterConfig{}, domain.Endpoint{Owner: "o", Name: "billing", URL: "http://billing"})
	for _, ep := range []string{"", "billing"} {
		if err := e.wake(t, ep); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.wake(t, "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("an unknown endpoint: %v, want an error naming it", err)
	}
	e.src.set(domain.Endpoint{Owner: "o", Name: "billing", URL: "http://billing-v2"})
	time.Sleep(5 * time.Millisecond)
	_ = e.wake(t, "billing")
	if got := strings.Join(e.got, " "); got != "default http://billing http://billing-v2" {
		t.Errorf("wakes went to %q", got)
	}
}

// With no queue (QueueWait 0), a wake that finds max_in_flight reached is held back at
// once, for the endpoint's pace: with no wake finished yet, the shortest wait.
func TestRouterCapsWakesInFlight(t *testing.T) {
	e := newRouterEnv(dispatch.EndpointRouterConfig{},
		domain.Endpoint{Owner: "o", Name: "slow", URL: "http://slow", MaxInFlight: 2})
	release := make(chan struct{})
	e.answer = func() error { <-release; return nil }
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); _ = e.wake(t, "slow") }()
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		e.mu.Lock()
		n := len(e.got)
		e.mu.Unlock()
		if n == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	err := e.wake(t, "slow")
	if d, reason, ok := heldBack(err); !ok || reason != ports.DeferredEndpointFull || d < 10*time.Millisecond || d > 100*time.Millisecond {
		t.Errorf("a third wake with two in flight: %v (%s, %s), want held back as %s for 10ms to 100ms", err, d, reason, ports.DeferredEndpointFull)
	}
	if err := e.wake(t, ""); err != nil {
		t.Errorf("the default receiver is not held up by a full endpoint: %v", err)
	}
	close(release)
	wg.Wait()
	e.answer = nil
	if err := e.wake(t, "slow"); err != nil {
		t.Errorf("after the two finished: %v", err)
	}
}

// With no queue, wakes over rate_per_second are held back as endpoint_rate until
// their token comes, one over the rate apart.
func TestRouterPacesAnEndpoint(t *testing.T) {
	e := newRouterEnv(dispatch.EndpointRouterConfig{}, domain.Endpoint{Owner: "o", Name: "paced", URL: "http://paced", RatePerSecond: 2})
	for i := range 2 {
		if err := e.wake(t, "paced"); err != nil {
			t.Fatalf("wake %d within the burst: %v", i, err)
		}
	}
	var waits []time.Duration
	for i := range 3 {
		d, reason, ok := heldBack(e.wake(t, "paced"))
		if !ok || reason != ports.DeferredEndpointRate {
			t.Fatalf("wake %d over 2/s in the same instant: held %v as %q, want held back as %s", i+3, ok, reason, ports.DeferredEndpointRate)
		}
		waits = append(waits, d)
	}
	if d := waits[0]; d < 400*time.Millisecond || d > 510*time.Millisecond {
		t.Errorf("the third wake at 2/s: held back %s, want about 500ms", d)
	}
	for i := 1; i < len(waits); i++ {
		if step := waits[i] - waits[i-1]; step < 450*time.Millisecond || step > 550*time.Millisecond {
			t.Errorf("hold-backs %s then %s: %s apart, want 1/rate (500ms)", waits[i-1], waits[i], step)
		}
	}
	if n := len(e.got); n != 2 {
		t.Errorf("%d wakes sent, want the 2 of the burst", n)
	}
}

func TestRouterBreaker(t *testing.T) {
	e := newRouterEnv(dispatch.EndpointRouterConfig{BreakerFailures: 3, BreakerCooldown: 100 * time.Millisecond, BreakerMaxCooldown: time.Second},
		domain.Endpoint{Owner: "o", Name: "dead", URL: "http://dead"})
	e.answer = func() error { return errors.New("timeout") }
	for range 3 {
		if _, held := deferFor(e.wake(t, "dead")); held {
			t.Fatal("held back before the breaker opened")
		}
	}
	d, reason, held := heldBack(e.wake(t, "dead"))
	if !held || d > 100*time.Millisecond || reason != ports.DeferredEndpointBreaker {
		t.Fatalf("after 3 failures: held %v for %s as %q, want the breaker open for up to 100ms", held, d, reason)
	}
	attempts := len(e.got)
	time.Sleep(110 * time.Millisecond)
	_ = e.wake(t, "dead") // the probe, which fails: open again for twice as long
	if len(e.got) != attempts+1 {
		t.Fatalf("the probe did not go out")
	}
	if d, held := deferFor(e.wake(t, "dead")); !held || d <= 100*time.Millisecond {
		t.Errorf("after a failed probe: held %v for %s, want about 200ms", held, d)
	}
	time.Sleep(210 * time.Millisecond)
	e.answer = nil
	if err := e.wake(t, "dead"); err != nil {
		t.Fatalf("the second probe: %v", err)
	}
	if err := e.wake(t, "dead"); err != nil {
		t.Errorf("after a delivered probe the breaker is closed, got %v", err)
	}
}

func TestRouterSendsNoticesToTheFailureURL(t *testing.T) {
	e := newRouterEnv(dispatch.EndpointRouterConfig{},
		domain.Endpoint{Owner: "o", Name: "told", URL: "http://told", FailureURL: "http://told/failures"},
		domain.Endpoint{Owner: "o", Name: "silent", URL: "http://silent"})
	if err := e.router.Wake(t.Context(), domain.Wake{AlarmID: "n", Owner: "o", Endpoint: "told", Notice: domain.NoticeFailed}); err != nil {
		t.Errorf("notice via told: %v", err)
	}
	// Nobody to tell: not delivered, and not worth a retry.
	err := e.router.Wake(t.Context(), domain.Wake{AlarmID: "n", Owner: "o", Endpoint: "silent", Notice: domain.NoticeFailed})
	var v ports.ReceiverVerdict
	if !errors.As(err, &v) || !v.Gone() || !strings.Contains(err.Error(), "no failure_url") {
		t.Errorf("notice via silent: %v, want a gone verdict naming the missing failure_url", err)
	}
	if got := strings.Join(e.got, " "); got != "http://told/failures" {
		t.Errorf("notices went to %q, want only the failure_url of the endpoint that has one", got)
	}
	// What the dispatcher asks before it keeps a notice: known endpoints as read, an
	// unknown one as having a failure_url (its read failed; the send settles it).
	for name, want := range map[string]bool{"told": true, "silent": false, "never-read": true} {
		if got := e.router.HasFailureURL("o", name); got != want {
			t.Errorf("HasFailureURL(%s) = %v, want %v", name, got, want)
		}
	}
}

// egressMetrics counts the egress refusals a router reports.
type egressMetrics struct {
	ports.NopMetrics
	mu      sync.Mutex
	refused []string
}

func (m *egressMetrics) EgressRefused(class string) {
	m.mu.Lock()
	m.refused = append(m.refused, class)
	m.mu.Unlock()
}

// A wake or notice the egress policy refused is counted by its class and teaches the
// breaker nothing: no receiver was reached, and a refusal is not retried anyway.
func TestRouterCountsEgressRefusals(t *testing.T) {
	m := &egressMetrics{}
	e := newRouterEnv(dispatch.EndpointRouterConfig{BreakerFailures: 2, Metrics: m},
		domain.Endpoint{Owner: "o", Name: "internal", URL: "http://internal", FailureURL: "http://internal/failures"})
	e.answer = func() error {
		return &domain.EgressError{Addr: netip.MustParseAddr("10.0.0.7"), Class: domain.EgressPrivate}
	}
	for i := range 4 {
		var refused *domain.EgressError
		if err := e.wake(t, "internal"); !errors.As(err, &refused) {
			t.Fatalf("wake %d: %v, want the refusal (not held back by a breaker)", i, err)
		}
	}
	if err := e.router.Wake(t.Context(), domain.Wake{AlarmID: "n", Owner: "o", Endpoint: "internal", Notice: domain.NoticeFailed}); err == nil {
		t.Fatal("the notice: delivered, want refused")
	}
	if got := strings.Join(m.refused, " "); got != "private private private private private" {
		t.Errorf("refusals counted: %q, want five of class private", got)
	}
}
