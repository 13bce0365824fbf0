package dispatch_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// queueMetrics records the router's EndpointQueues reports.
type queueMetrics struct {
	ports.NopMetrics
	mu      sync.Mutex
	reports [][2]int // endpoints, wakes
}

func (m *queueMetrics) EndpointQueues(endpoints, wakes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reports = append(m.reports, [2]int{endpoints, wakes})
}

// last is the latest report; zero before any.
func (m *queueMetrics) last() [2]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.reports) == 0 {
		return [2]int{}
	}
	return m.reports[len(m.reports)-1]
}

func (m *queueMetrics) all() [][2]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reports)
}

func (m *queueMetrics) seen(want [2]int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Contains(m.reports, want)
}

// sentWake is one wake as a gated receiver saw it.
type sentWake struct {
	id       string
	at       time.Time
	deadline time.Time // zero: none
}

// gatedEnv is a router whose receivers record every wake they get and answer at once,
// after took, or when the test lets a held wake go (hold, let).
type gatedEnv struct {
	router  *dispatch.EndpointRouter
	metrics *queueMetrics

	mu    sync.Mutex
	sent  []sentWake
	gates map[string]chan struct{} // by alarm id: answer when closed
	took  time.Duration
}

type gatedWaker struct{ e *gatedEnv }

func (w gatedWaker) Wake(ctx context.Context, wk domain.Wake) error {
	e := w.e
	deadline, _ := ctx.Deadline()
	e.mu.Lock()
	e.sent = append(e.sent, sentWake{id: wk.AlarmID, at: time.Now(), deadline: deadline})
	gate, took := e.gates[wk.AlarmID], e.took
	e.mu.Unlock()
	if gate == nil {
		if took == 0 {
			return nil
		}
		timer := time.NewTimer(took)
		defer timer.Stop()
		gate = make(chan struct{})
		go func() { <-timer.C; close(gate) }()
	}
	select {
	case <-gate:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func newGatedEnv(t *testing.T, cfg dispatch.EndpointRouterConfig, eps ...domain.Endpoint) *gatedEnv {
	t.Helper()
	src := &endpointsFake{eps: map[string]domain.Endpoint{}}
	for _, ep := range eps {
		src.eps[ep.Name] = ep
	}
	e := &gatedEnv{metrics: &queueMetrics{}, gates: map[string]chan struct{}{}}
	cfg.Metrics = e.metrics
	e.router = dispatch.NewEndpointRouter(gatedWaker{e}, src, func(domain.Endpoint) (ports.Waker, error) { return gatedWaker{e}, nil }, cfg)
	t.Cleanup(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		for id, g := range e.gates {
			close(g)
			delete(e.gates, id)
		}
	})
	return e
}

// hold makes the wake of alarm id wait, once sent, until let(id).
func (e *gatedEnv) hold(ids ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, id := range ids {
		e.gates[id] = make(chan struct{})
	}
}

func (e *gatedEnv) let(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if g := e.gates[id]; g != nil {
		close(g)
		delete(e.gates, id)
	}
}

func (e *gatedEnv) setTook(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.took = d
}

func (e *gatedEnv) wake(ctx context.Context, endpoint, id string) error {
	return e.router.Wake(ctx, domain.Wake{AlarmID: id, Owner: "o", Endpoint: endpoint})
}

// goWake sends a wake on its own goroutine; its result comes on the channel.
func (e *gatedEnv) goWake(ctx context.Context, endpoint, id string) <-chan error {
	done := make(chan error, 1)
	go func() { done <- e.wake(ctx, endpoint, id) }()
	return done
}

// sentWakes is the ids sent so far, in order.
func (e *gatedEnv) sentWakes() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	ids := make([]string, len(e.sent))
	for i, s := range e.sent {
		ids[i] = s.id
	}
	return ids
}

func (e *gatedEnv) sentAs(t *testing.T, id string) sentWake {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range e.sent {
		if s.id == id {
			return s
		}
	}
	t.Fatalf("%s was never sent", id)
	return sentWake{}
}

func (e *gatedEnv) waitSent(t *testing.T, id string) {
	t.Helper()
	within(t, 2*time.Second, id+" sent", func() bool { return slices.Contains(e.sentWakes(), id) })
}

func (e *gatedEnv) waitQueued(t *testing.T, wakes int) {
	t.Helper()
	within(t, 2*time.Second, "queues reported", func() bool { return e.metrics.last()[1] == wakes })
}

// within polls cond every millisecond until it holds, failing the test after timeout.
func within(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(time.Millisecond)
	}
}

func result(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no result after 5s", what)
		return nil
	}
}

// A wake that finds max_in_flight reached waits in the endpoint's queue and is sent as
// soon as a wake in flight ends, the oldest queued first.
func TestRouterQueueSendsWakesAsRoomFreesOldestFirst(t *testing.T) {
	const maxInFlight = 3
	e := newGatedEnv(t, dispatch.EndpointRouterConfig{QueueWait: 5 * time.Second},
		domain.Endpoint{Owner: "o", Name: "slow", URL: "http://slow", MaxInFlight: maxInFlight})
	ctx := t.Context()
	var flying, queued []string
	var done []<-chan error
	for i := range maxInFlight {
		id := "flying-" + string(rune('a'+i))
		flying = append(flying, id)
		e.hold(id)
		done = append(done, e.goWake(ctx, "slow", id))
		e.waitSent(t, id)
	}
	for i := range maxInFlight {
		id := "queued-" + string(rune('a'+i))
		queued = append(queued, id)
		e.hold(id) // each stays in flight once sent, so the next one waits for the next end
		done = append(done, e.goWake(ctx, "slow", id))
		e.waitQueued(t, i+1) // in this order
	}
	time.Sleep(30 * time.Millisecond)
	if got := e.sentWakes(); len(got) != maxInFlight {
		t.Fatalf("sent %v with %d in flight, want only those", got, maxInFlight)
	}
	if !e.metrics.seen([2]int{1, maxInFlight}) {
		t.Errorf("EndpointQueues never reported 1 endpoint with %d wakes queued: %v", maxInFlight, e.metrics.all())
	}
	for i := range maxInFlight {
		ended := time.Now()
		e.let(flying[i])
		e.waitSent(t, queued[i])
		if took := e.sentAs(t, queued[i]).at.Sub(ended); took > 500*time.Millisecond {
			t.Errorf("%s sent %s after a wake ended, want at once", queued[i], took)
		}
		time.Sleep(20 * time.Millisecond)
		if got := e.sentWakes(); len(got) != maxInFlight+i+1 {
			t.Fatalf("after %d ended: sent %v, want one queued wake sent per wake ended", i+1, got)
		}
	}
	if got, want := e.sentWakes(), append(slices.Clone(flying), queued...); !slices.Equal(got, want) {
		t.Errorf("sent %v, want %v (queued wakes oldest first)", got, want)
	}
	for _, id := range queued {
		e.let(id)
	}
	for i, d := range done {
		if err := result(t, d, "wake"); err != nil {
			t.Errorf("wake %d: %v, want sent", i, err)
		}
	}
	if got := e.metrics.last(); got != [2]int{0, 0} {
		t.Errorf("EndpointQueues last reported %v, want [0 0] with the queue empty", got)
	}
}

// The queue holds as many wakes as max_in_flight; the next ones are held back at once
// as endpoint_full, each due a pace step (the endpoint's wake duration over
// max_in_flight) after the one before.
func TestRouterQueueFullHoldsBackAtTheEndpointsPace(t *testing.T) {
	e := newGatedEnv(t, dispatch.EndpointRouterConfig{QueueWait: 5 * time.Second},
		domain.Endpoint{Owner: "o", Name: "slow", URL: "http://slow", MaxInFlight: 2})
	ctx := t.Context()
	e.setTook(100 * time.Millisecond) // the endpoint's wakes take 100ms: a step of 50ms
	for _, id := range []string{"warm-1", "warm-2"} {
		if err := e.wake(ctx, "slow", id); err != nil {
			t.Fatal(err)
		}
	}
	e.setTook(0)
	e.hold("f1", "f2", "q1", "q2")
	var done []<-chan error
	for _, id := range []string{"f1", "f2"} {
		done = append(done, e.goWake(ctx, "slow", id))
		e.waitSent(t, id)
	}
	for i, id := range []string{"q1", "q2"} {
		done = append(done, e.goWake(ctx, "slow", id))
		e.waitQueued(t, i+1)
	}
	var waits []time.Duration
	for _, id := range []string{"x1", "x2", "x3"} {
		start := time.Now()
		err := e.wake(ctx, "slow", id)
		d, reason, ok := heldBack(err)
		if !ok || reason != ports.DeferredEndpointFull {
			t.Fatalf("%s with 2 in flight and 2 queued: %v (%q), want held back as %s", id, err, reason, ports.DeferredEndpointFull)
		}
		if took := time.Since(start); took > 50*time.Millisecond {
			t.Errorf("%s held back after %s, want at once (the queue is full)", id, took)
		}
		waits = append(waits, d)
	}
	// One step is the wakes' duration (100ms, more on a loaded machine) over 2.
	step := waits[0]
	if step < 50*time.Millisecond || step > 150*time.Millisecond {
		t.Errorf("first hold-back %s, want one step (100ms / 2 = 50ms, a little more under load)", step)
	}
	for i := 1; i < len(waits); i++ {
		if d := waits[i] - waits[i-1]; d < step-15*time.Millisecond || d > step+15*time.Millisecond {
			t.Errorf("hold-backs %s then %s: %s apart, want a step (%s)", waits[i-1], waits[i], d, step)
		}
	}
	for _, id := range []string{"f1", "f2", "q1", "q2"} {
		e.let(id)
	}
	for i, d := range done {
		if err := result(t, d, "wake"); err != nil {
			t.Errorf("wake %d: %v, want sent", i, err)
		}
	}
	for _, id := range e.sentWakes() {
		if id[0] == 'x' {
			t.Errorf("%s was held back and sent", id)
		}
	}
}

// A queued wake that gets no room within QueueWait gives up and is held back; its
// place is not kept.
func TestRouterQueuedWakeGivesUpAfterQueueWait(t *testing.T) {
	const wait = 150 * time.Millisecond
	e := newGatedEnv(t, dispatch.EndpointRouterConfig{QueueWait: wait},
		domain.Endpoint{Owner: "o", Name: "hung", URL: "http://hung", MaxInFlight: 1})
	ctx := t.Context()
	e.hold("f1")
	f1 := e.goWake(ctx, "hung", "f1")
	e.waitSent(t, "f1")
	start := time.Now()
	err := e.wake(ctx, "hung", "q1")
	waited := time.Since(start)
	if _, reason, ok := heldBack(err); !ok || reason != ports.DeferredEndpointFull {
		t.Fatalf("a queued wake with no room: %v (%q), want held back as %s", err, reason, ports.DeferredEndpointFull)
	}
	if waited < wait || waited > wait+time.Second {
		t.Errorf("held back after %s in the queue, want QueueWait (%s)", waited, wait)
	}
	if got := e.metrics.last(); got != [2]int{0, 0} {
		t.Errorf("EndpointQueues last reported %v, want [0 0] after the wake left the queue", got)
	}
	e.let("f1")
	if err := result(t, f1, "f1"); err != nil {
		t.Fatal(err)
	}
	if err := e.wake(ctx, "hung", "after"); err != nil {
		t.Errorf("a wake after the one in flight ended: %v, want sent", err)
	}
	if got := e.sentWakes(); !slices.Equal(got, []string{"f1", "after"}) {
		t.Errorf("sent %v, want [f1 after]", got)
	}
}

// A queued wake whose ctx ends leaves the queue, and the endpoint's room is counted
// right afterwards: a later wake gets in when the one in flight ends, and no more than
// max_in_flight are ever in flight. The second part races the cancel against the
// room being handed over.
func TestRouterCancelledQueuedWakeLeaksNoRoom(t *testing.T) {
	e := newGatedEnv(t, dispatch.EndpointRouterConfig{QueueWait: 10 * time.Second},
		domain.Endpoint{Owner: "o", Name: "ep", URL: "http://ep", MaxInFlight: 1})
	ctx := t.Context()
	e.hold("f1")
	f1 := e.goWake(ctx, "ep", "f1")
	e.waitSent(t, "f1")
	qctx, cancel := context.WithCancel(ctx)
	q := e.goWake(qctx, "ep", "q")
	e.waitQueued(t, 1)
	cancel()
	if _, ok := deferFor(result(t, q, "the cancelled wake")); !ok {
		t.Error("a queued wake whose ctx ended: want held back")
	}
	if got := e.metrics.last(); got != [2]int{0, 0} {
		t.Errorf("EndpointQueues last reported %v, want [0 0]", got)
	}
	e.let("f1")
	if err := result(t, f1, "f1"); err != nil {
		t.Fatal(err)
	}
	checkRoomIsOne(t, e, "after a cancel")

	var sent, held int
	for i := range 200 {
		e.hold("f")
		f := e.goWake(ctx, "ep", "f")
		within(t, 2*time.Second, "f in flight", func() bool { return len(e.sentWakes()) > 0 && e.sentWakes()[len(e.sentWakes())-1] == "f" })
		qctx, cancel := context.WithCancel(ctx)
		q := e.goWake(qctx, "ep", "q")
		e.waitQueued(t, 1)
		go cancel()
		e.let("f")
		if err := result(t, f, "f"); err != nil {
			t.Fatal(err)
		}
		if _, ok := deferFor(result(t, q, "q")); ok { // sent or held back: either, as long as the room is right
			held++
		} else {
			sent++
		}
		if t.Failed() {
			t.Fatalf("round %d", i)
		}
		e.mu.Lock()
		e.sent = e.sent[:0]
		e.mu.Unlock()
	}
	t.Logf("racing a cancel against the room handed over: %d sent, %d held back", sent, held)
	checkRoomIsOne(t, e, "after racing cancels")
}

// checkRoomIsOne checks that an endpoint with max_in_flight 1 and nothing in flight
// takes exactly one wake: the first is sent at once, the second waits for it.
func checkRoomIsOne(t *testing.T, e *gatedEnv, when string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	e.hold("room-1")
	first := e.goWake(ctx, "ep", "room-1")
	within(t, time.Second, when+": a wake sent into an idle endpoint", func() bool { return slices.Contains(e.sentWakes(), "room-1") })
	second := e.goWake(ctx, "ep", "room-2")
	e.waitQueued(t, 1)
	if slices.Contains(e.sentWakes(), "room-2") {
		t.Errorf("%s: a second wake sent with max_in_flight 1 and one in flight", when)
	}
	e.let("room-1")
	for _, d := range []<-chan error{first, second} {
		if err := result(t, d, when); err != nil {
			t.Errorf("%s: %v, want sent", when, err)
		}
	}
}

// A wake that waited in the queue is sent with a deadline SendTimeout after it left the
// queue, not the one it came with: time spent queuing is not taken from its delivery.
func TestRouterQueuedWakeGetsAFreshDeadline(t *testing.T) {
	const send = time.Second
	e := newGatedEnv(t, dispatch.EndpointRouterConfig{QueueWait: 5 * time.Second, SendTimeout: send},
		domain.Endpoint{Owner: "o", Name: "ep", URL: "http://ep", MaxInFlight: 1})
	e.hold("f1")
	f1 := e.goWake(t.Context(), "ep", "f1")
	e.waitSent(t, "f1")
	ctx, cancel := context.WithTimeout(t.Context(), 600*time.Millisecond)
	defer cancel()
	came, _ := ctx.Deadline()
	q := e.goWake(ctx, "ep", "q")
	e.waitQueued(t, 1)
	time.Sleep(300 * time.Millisecond)
	e.let("f1")
	if err := result(t, q, "q"); err != nil {
		t.Fatalf("the queued wake: %v, want sent", err)
	}
	if err := result(t, f1, "f1"); err != nil {
		t.Fatal(err)
	}
	s := e.sentAs(t, "q")
	if s.deadline.IsZero() {
		t.Fatal("the queued wake was sent without a deadline")
	}
	if off := s.deadline.Sub(s.at.Add(send)); off < -50*time.Millisecond || off > 50*time.Millisecond {
		t.Errorf("deadline %s after it was sent, want SendTimeout (%s); the one it came with was %s after",
			s.deadline.Sub(s.at), send, came.Sub(s.at))
	}
}

// rate_per_second: a wake whose token is less than QueueWait and a second away waits for
// it and is sent; one farther is held back as endpoint_rate, successive hold-backs one
// over the rate apart.
func TestRouterRateQueueWaitsForTokensNearEnough(t *testing.T) {
	e := newGatedEnv(t, dispatch.EndpointRouterConfig{QueueWait: 2 * time.Second},
		domain.Endpoint{Owner: "o", Name: "paced", URL: "http://paced", RatePerSecond: 2})
	ctx := t.Context()
	start := time.Now()
	for _, id := range []string{"b1", "b2"} {
		if err := e.wake(ctx, "paced", id); err != nil {
			t.Fatalf("%s within the burst: %v", id, err)
		}
	}
	w3 := e.goWake(ctx, "paced", "w3") // its token is 500ms away
	e.waitQueued(t, 1)
	w4 := e.goWake(ctx, "paced", "w4") // 1s away, give or take the time since w3's
	e.waitQueued(t, 2)
	if !e.metrics.seen([2]int{1, 2}) {
		t.Errorf("EndpointQueues never reported 1 endpoint with 2 wakes waiting: %v", e.metrics.all())
	}
	var waits []time.Duration
	for _, id := range []string{"x1", "x2"} {
		err := e.wake(ctx, "paced", id)
		d, reason, ok := heldBack(err)
		if !ok || reason != ports.DeferredEndpointRate {
			t.Fatalf("%s, its token 1.5s away: %v (%q), want held back as %s", id, err, reason, ports.DeferredEndpointRate)
		}
		waits = append(waits, d)
	}
	if waits[0] < 1300*time.Millisecond || waits[0] > 1510*time.Millisecond {
		t.Errorf("first hold-back %s, want about 1.5s (its token's time)", waits[0])
	}
	if step := waits[1] - waits[0]; step < 450*time.Millisecond || step > 550*time.Millisecond {
		t.Errorf("hold-backs %s then %s: %s apart, want 1/rate (500ms)", waits[0], waits[1], step)
	}
	for id, d := range map[string]<-chan error{"w3": w3, "w4": w4} {
		if err := result(t, d, id); err != nil {
			t.Errorf("%s: %v, want sent after waiting for its token", id, err)
		}
	}
	for id, want := range map[string]time.Duration{"w3": 500 * time.Millisecond, "w4": time.Second} {
		if at := e.sentAs(t, id).at.Sub(start); at < want-50*time.Millisecond || at > want+400*time.Millisecond {
			t.Errorf("%s sent %s after the burst, want about %s", id, at, want)
		}
	}
	if got := e.sentWakes(); !slices.Equal(got, []string{"b1", "b2", "w3", "w4"}) {
		t.Errorf("sent %v, want [b1 b2 w3 w4]", got)
	}
	if got := e.metrics.last(); got != [2]int{0, 0} {
		t.Errorf("EndpointQueues last reported %v, want [0 0]", got)
	}
}

// A wake whose token is farther than QueueWait is held back at once, not queued.
func TestRouterRateBeyondQueueWaitHoldsBack(t *testing.T) {
	e := newGatedEnv(t, dispatch.EndpointRouterConfig{QueueWait: 300 * time.Millisecond},
		domain.Endpoint{Owner: "o", Name: "paced", URL: "http://paced", RatePerSecond: 2})
	ctx := t.Context()
	for _, id := range []string{"b1", "b2"} {
		if err := e.wake(ctx, "paced", id); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	d, reason, ok := heldBack(e.wake(ctx, "paced", "x"))
	if !ok || reason != ports.DeferredEndpointRate || d < 400*time.Millisecond {
		t.Errorf("a token 500ms away with QueueWait 300ms: held %v for %s as %q, want held back as %s for about 500ms", ok, d, reason, ports.DeferredEndpointRate)
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("held back after %s, want at once", took)
	}
}

// The queues are reported per node: how many endpoints have wakes waiting, and how many
// wakes in all.
func TestRouterReportsEndpointQueues(t *testing.T) {
	e := newGatedEnv(t, dispatch.EndpointRouterConfig{QueueWait: 5 * time.Second},
		domain.Endpoint{Owner: "o", Name: "a", URL: "http://a", MaxInFlight: 1},
		domain.Endpoint{Owner: "o", Name: "b", URL: "http://b", MaxInFlight: 2})
	ctx := t.Context()
	e.hold("a1", "b1", "b2")
	var done []<-chan error
	for _, w := range [][2]string{{"a", "a1"}, {"b", "b1"}, {"b", "b2"}} {
		done = append(done, e.goWake(ctx, w[0], w[1]))
		e.waitSent(t, w[1])
	}
	done = append(done, e.goWake(ctx, "a", "a2"))
	e.waitQueued(t, 1)
	done = append(done, e.goWake(ctx, "b", "b3"))
	e.waitQueued(t, 2)
	done = append(done, e.goWake(ctx, "b", "b4"))
	e.waitQueued(t, 3)
	if got := e.metrics.last(); got != [2]int{2, 3} {
		t.Errorf("reported %v, want 2 endpoints queuing, 3 wakes", got)
	}
	e.let("a1")
	e.waitQueued(t, 2)
	if got := e.metrics.last(); got != [2]int{1, 2} {
		t.Errorf("reported %v after a's queue emptied, want [1 2]", got)
	}
	e.let("b1")
	e.let("b2")
	for _, d := range done {
		if err := result(t, d, "wake"); err != nil {
			t.Error(err)
		}
	}
	if got := e.metrics.last(); got != [2]int{0, 0} {
		t.Errorf("reported %v at the end, want [0 0]", got)
	}
}

// A wake that found room at once keeps the deadline it came with: SendTimeout is for
// wakes that waited in the queue (the dispatcher's batch deadline is every other
// wake's, one timer per batch).
func TestRouterWakeThatDidNotQueueKeepsItsDeadline(t *testing.T) {
	// admit returns time.Since(start) as queuedFor whether or not the wake waited, so
	// Wake's queuedFor > 0 always holds and every wake gets freshDeadline.
	e := newGatedEnv(t, dispatch.EndpointRouterConfig{QueueWait: 5 * time.Second, SendTimeout: time.Minute},
		domain.Endpoint{Owner: "o", Name: "ep", URL: "http://ep", MaxInFlight: 1})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	came, _ := ctx.Deadline()
	if err := e.wake(ctx, "ep", "w"); err != nil {
		t.Fatal(err)
	}
	if got := e.sentAs(t, "w").deadline; !got.Equal(came) {
		t.Errorf("a wake that did not queue was sent with a deadline %s after the one it came with, want that one",
			got.Sub(came).Round(time.Millisecond))
	}
}
