package dispatch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// EndpointRouterConfig tunes an EndpointRouter; zero values take the defaults.
type EndpointRouterConfig struct {
	// BreakerFailures consecutive failed deliveries to an endpoint open its breaker (10).
	BreakerFailures int
	// BreakerCooldown is how long a breaker first stays open (30s); each failed probe
	// doubles it, up to BreakerMaxCooldown (10m).
	BreakerCooldown    time.Duration
	BreakerMaxCooldown time.Duration
	// Refresh is how often the endpoints' state value is read to notice changes (1s).
	Refresh time.Duration
	// BusyWait is how long a wake waits before it is due again when the breaker is
	// half-open with its probe out (1s); a wake that finds its endpoint full waits in
	// the endpoint's queue instead, or comes back at the endpoint's pace (QueueWait).
	BusyWait time.Duration
	// QueueWait is the longest a wake waits on this node in its endpoint's queue for
	// room (max_in_flight) or for its turn (rate_per_second) before it is held back
	// instead. 0 means no queue: a wake that finds no room is held back at once. A queue
	// holds at most as many wakes as the endpoint's max_in_flight (or one second of its
	// rate): the rest are held back, due again at the endpoint's own pace.
	QueueWait time.Duration
	// SendTimeout is the deadline a wake gets when it leaves the queue (the
	// dispatcher's DeliveryTimeout), so time spent queuing is not taken from its
	// delivery. 0: it keeps the deadline it came with.
	SendTimeout time.Duration
	// SharedMaxInFlight keeps the default waker's receiver (--wake-url), which every
	// owner's wakes share, fair between them: while several owners use it, at most this
	// many wakes are in flight to it from this node and the rest wait their owner's turn
	// here, for up to QueueWait (sharedReceiver). 0: no limit.
	SharedMaxInFlight int
	// Log receives breaker changes; nil: none. Metrics counts them; nil: none.
	Log     *zap.Logger
	Metrics ports.Metrics
}

func (c *EndpointRouterConfig) defaults() {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if c.BreakerFailures <= 0 {
		c.BreakerFailures = 10
	}
	set(&c.BreakerCooldown, 30*time.Second)
	set(&c.BreakerMaxCooldown, 10*time.Minute)
	set(&c.Refresh, time.Second)
	set(&c.BusyWait, time.Second)
	if c.Log == nil {
		c.Log = zap.NewNop()
	}
	if c.Metrics == nil {
		c.Metrics = ports.NopMetrics{}
	}
}

// EndpointSource is what a router reads: the owners' endpoints, and the state value
// that says they changed. A ports.Store is one.
type EndpointSource interface {
	GetEndpoint(ctx context.Context, owner, name string) (domain.Endpoint, error)
	GetState(ctx context.Context, name string) (ports.State, bool, error)
}

// WakerBuilder makes the waker of one endpoint (its URL, secrets and timeout).
type WakerBuilder func(e domain.Endpoint) (ports.Waker, error)

// EndpointRouter is a node's waker when alarms may name endpoints. A wake naming none
// goes to the default waker (--wake-url); one naming an endpoint goes to that
// endpoint's own waker, built once and rebuilt when the endpoint changes.
//
// It keeps receivers apart: on this node, an endpoint's wakes in flight are capped by
// its max_in_flight and paced by its rate_per_second, and a wake that finds no room is
// held back (a ports.Deferral: the alarm is due again shortly, nothing counted), so a
// slow or dead receiver holds at most its own share of the delivery slots. After
// BreakerFailures failed deliveries in a row an endpoint's breaker opens: its wakes are
// held back until the cool-down ends, then one probe at a time decides whether it
// closes (a delivery) or opens again for twice as long.
type EndpointRouter struct {
	def    ports.Waker
	source EndpointSource
	build  WakerBuilder
	cfg    EndpointRouterConfig

	reads  singleflight.Group // concurrent reads of one endpoint share one query
	shared *sharedReceiver    // the default waker's receiver; nil: unlimited

	mu          sync.Mutex
	endpoints   map[endpointKey]*endpointState
	queuedWakes int         // waiting in every endpoint's queue
	watch       *stateWatch // the endpoints state value: every change moves it
}

type endpointKey struct{ owner, name string }

// endpointState is one endpoint as this node delivers to it.
type endpointState struct {
	ep      domain.Endpoint
	waker   ports.Waker
	notices ports.Waker   // to the failure_url; nil when it has none
	limiter *rate.Limiter // nil: unpaced
	missing error         // the endpoint does not exist (until the next change)
	stale   bool          // the endpoints changed: read it again before the next wake

	inFlight int       // wakes holding room: being delivered, or pacing
	heldBack int64     // wakes held back (room, rate, breaker) since the node started
	waiting  []*queued // wakes waiting for room, oldest first
	pacing   int       // wakes waiting for their turn under rate_per_second
	// pace spaces the wakes held back for room or rate: a step is a wake's duration
	// over max_in_flight, or one over the rate.
	pace pace
	// the breaker
	failures  int       // failed deliveries in a row
	openUntil time.Time // zero: closed
	cooldown  time.Duration
	probing   bool // half-open: the one probe is in flight
}

// NewEndpointRouter routes wakes between def and the endpoints' own wakers.
func NewEndpointRouter(def ports.Waker, source EndpointSource, build WakerBuilder, cfg EndpointRouterConfig) *EndpointRouter {
	cfg.defaults()
	return &EndpointRouter{def: def, source: source, build: build, cfg: cfg, endpoints: map[endpointKey]*endpointState{},
		shared: newSharedReceiver(cfg.SharedMaxInFlight, cfg.QueueWait),
		watch:  newStateWatch(source, app.EndpointsStateName, cfg.Refresh)}
}

var _ ports.ResponseWaker = (*EndpointRouter)(nil)

// queued is a wake waiting in its endpoint's queue.
type queued struct {
	ready   chan struct{} // closed when room was handed to it
	granted bool          // under the router's lock: room is ours (inFlight counts us)
}

// heldBack is a wake the router did not send (ports.Deferral).
type heldBack struct {
	wait   time.Duration
	reason string // a ports.Deferred* reason
	why    string
}

func (h *heldBack) Error() string           { return h.why }
func (h *heldBack) DeferFor() time.Duration { return h.wait }
func (h *heldBack) DeferReason() string     { return h.reason }

// Bounds of a held-back wake's wait at its endpoint's pace.
const (
	paceMinWait = 10 * time.Millisecond
	paceMaxWait = time.Minute
)

// Wake delivers w to its endpoint, or holds it back.
func (r *EndpointRouter) Wake(ctx context.Context, w domain.Wake) error {
	_, err := r.WakeResponse(ctx, w)
	return err
}

// WakeResponse is Wake with the receiver's answer, as the waker that sent it reports it
// (ports.WakeFor): the attempt log's.
func (r *EndpointRouter) WakeResponse(ctx context.Context, w domain.Wake) (ports.Response, error) {
	if w.Endpoint == "" {
		return r.wakeDefault(ctx, w)
	}
	st, err := r.endpoint(ctx, w.Owner, w.Endpoint)
	if err != nil {
		return ports.Response{}, err
	}
	if w.Notice != "" {
		return ports.Response{}, r.notify(ctx, st, w)
	}
	waker, probe, queuedFor, held := r.admit(ctx, st)
	if held != nil {
		return ports.Response{}, held
	}
	sendCtx := ctx
	if queuedFor > 0 && r.cfg.SendTimeout > 0 {
		var cancel context.CancelFunc
		sendCtx, cancel = freshDeadline(ctx, r.cfg.SendTimeout)
		defer cancel()
	}
	start := time.Now()
	resp, err := ports.WakeFor(sendCtx, waker, w)
	r.countRefusal(err)
	r.settle(ctx, st, err, probe, time.Since(start))
	return resp, err
}

// countRefusal counts a wake the egress policy refused (domain.EgressError).
func (r *EndpointRouter) countRefusal(err error) {
	var refused *domain.EgressError
	if errors.As(err, &refused) {
		r.cfg.Metrics.EgressRefused(refused.Class)
	}
}

// wakeDefault delivers w to the default waker, taking its owner's turn at the shared
// receiver first when there is a limit.
func (r *EndpointRouter) wakeDefault(ctx context.Context, w domain.Wake) (ports.Response, error) {
	if r.shared == nil {
		return ports.WakeFor(ctx, r.def, w)
	}
	waited, ok := r.shared.acquire(ctx, w.Owner)
	if !ok {
		return ports.Response{}, &heldBack{wait: r.cfg.BusyWait, reason: ports.DeferredReceiverShared,
			why: fmt.Sprintf("the wake URL's receiver is shared and full: %d wakes in flight from this node", r.cfg.SharedMaxInFlight)}
	}
	defer r.shared.release(w.Owner)
	if waited > 0 && r.cfg.SendTimeout > 0 {
		sendCtx, cancel := freshDeadline(ctx, r.cfg.SendTimeout)
		defer cancel()
		return ports.WakeFor(sendCtx, r.def, w)
	}
	return ports.WakeFor(ctx, r.def, w)
}

// notify delivers a failure notice to its endpoint's failure_url. Notices are few (one
// per alarm failed for good): they take no room of the endpoint's and do not feed its
// breaker, whose receiver they are not sent to. An endpoint without a failure_url has
// nobody to tell: the dispatcher makes no notice for it (HasFailureURL), and one made
// before its failure_url was removed fails at once, recorded as not delivered.
func (r *EndpointRouter) notify(ctx context.Context, st *endpointState, w domain.Wake) error {
	r.mu.Lock()
	notices := st.notices
	r.mu.Unlock()
	if notices == nil {
		return errNoFailureURL{name: w.Endpoint}
	}
	err := notices.Wake(ctx, w)
	r.countRefusal(err)
	return err
}

// errNoFailureURL is the outcome of a notice whose endpoint has no failure_url (any
// more): nobody will ever take it, so it is not retried (ports.ReceiverVerdict).
type errNoFailureURL struct{ name string }

func (e errNoFailureURL) Error() string {
	return "endpoint " + e.name + " has no failure_url: the notice has nobody to go to"
}
func (errNoFailureURL) RetryAfter() time.Duration { return 0 }
func (errNoFailureURL) Gone() bool                { return true }

// HasFailureURL reports whether the owner's endpoint has a failure_url, as this node
// last read it, without reading the store: a wake of it has just gone through Wake, so
// it is known. An endpoint the node has not read (the read failed) counts as having one,
// so a notice is never lost for want of a read; notify settles it when it is sent.
func (r *EndpointRouter) HasFailureURL(owner, name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.endpoints[endpointKey{owner, name}]
	if st == nil {
		return true
	}
	return st.missing == nil && st.ep.FailureURL != ""
}

// admit takes room for one wake on st, waiting in the endpoint's queue for up to
// QueueWait when there is none, or says why not. queuedFor is how long it waited.
func (r *EndpointRouter) admit(ctx context.Context, st *endpointState) (waker ports.Waker, probe bool, queuedFor time.Duration, held *heldBack) {
	start := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	defer func() { // under r.mu: deferred after the unlock, so run before it
		if held != nil {
			st.heldBack++
		}
	}()
	if !st.openUntil.IsZero() {
		if start.Before(st.openUntil) {
			return nil, false, 0, &heldBack{wait: st.openUntil.Sub(start), reason: ports.DeferredEndpointBreaker, why: "endpoint " + st.ep.Name + ": breaker open"}
		}
		if st.probing {
			return nil, false, 0, &heldBack{wait: r.cfg.BusyWait, reason: ports.DeferredEndpointBreaker, why: "endpoint " + st.ep.Name + ": breaker half-open, a probe is in flight"}
		}
		probe = true // the cool-down is over: this wake is the probe
	}
	waited := false // only a wake that waited gets a fresh deadline: the rest keep the batch's
	if !probe && st.ep.MaxInFlight > 0 && st.inFlight >= st.ep.MaxInFlight {
		if waited = r.waitForRoom(ctx, st); !waited {
			return nil, false, 0, r.paced(st, time.Now(), 0, ports.DeferredEndpointFull,
				fmt.Sprintf("endpoint %s: %d wakes in flight (max_in_flight) and %d queued", st.ep.Name, st.inFlight, len(st.waiting)))
		}
	} else {
		st.inFlight++
	}
	// The room is ours from here: every way out below either keeps it for the send or
	// gives it back.
	if st.limiter != nil {
		now := time.Now()
		res := st.limiter.ReserveN(now, 1)
		if wait := res.DelayFrom(now); wait > 0 {
			if time.Since(start)+wait > r.cfg.QueueWait || wait > time.Second || !r.sleep(ctx, st, wait) {
				res.CancelAt(now)
				r.release(st)
				return nil, false, 0, r.paced(st, now, wait, ports.DeferredEndpointRate,
					fmt.Sprintf("endpoint %s: over rate_per_second %g", st.ep.Name, st.ep.RatePerSecond))
			}
			waited = true
		}
	}
	st.probing = st.probing || probe
	if !waited {
		return st.waker, probe, 0, nil
	}
	return st.waker, probe, time.Since(start), nil
}

// waitForRoom queues the wake on st (r.mu held, and held again on return) until a wake
// in flight hands it its room, for up to QueueWait. It reports whether it got room
// (inFlight then counts it). A queue holds as many wakes as max_in_flight: more
// waiting would only hold more delivery slots for nothing.
func (r *EndpointRouter) waitForRoom(ctx context.Context, st *endpointState) bool {
	if r.cfg.QueueWait <= 0 || len(st.waiting) >= st.ep.MaxInFlight {
		return false
	}
	q := &queued{ready: make(chan struct{})}
	st.waiting = append(st.waiting, q)
	r.queuesChanged(1)
	r.mu.Unlock()
	timer := time.NewTimer(r.cfg.QueueWait)
	select {
	case <-q.ready:
	case <-ctx.Done():
	case <-timer.C:
	}
	timer.Stop()
	r.mu.Lock()
	if q.granted {
		return true
	}
	for i, w := range st.waiting {
		if w == q {
			st.waiting = append(st.waiting[:i], st.waiting[i+1:]...)
			break
		}
	}
	r.queuesChanged(-1)
	return false
}

// sleep waits d (r.mu held, and held again on return) for the wake's turn under the
// endpoint's rate; false when ctx ended first.
func (r *EndpointRouter) sleep(ctx context.Context, st *endpointState, d time.Duration) bool {
	st.pacing++
	r.queuesChanged(1)
	r.mu.Unlock()
	timer := time.NewTimer(d)
	var ok bool
	select {
	case <-timer.C:
		ok = true
	case <-ctx.Done():
		timer.Stop()
	}
	r.mu.Lock()
	st.pacing--
	r.queuesChanged(-1)
	return ok
}

// paced holds a wake back until the endpoint's pace says its turn comes (r.mu held):
// one pace step after the last one held back, at least after wait.
func (r *EndpointRouter) paced(st *endpointState, now time.Time, wait time.Duration, reason, why string) *heldBack {
	var step time.Duration
	switch {
	case reason == ports.DeferredEndpointRate:
		step = time.Duration(float64(time.Second) / st.ep.RatePerSecond)
	default:
		step = max(st.pace.took, paceMinWait) / time.Duration(max(st.ep.MaxInFlight, 1))
		wait = max(wait, step)
	}
	return &heldBack{wait: st.pace.holdBack(now, step, max(wait, paceMinWait), paceMaxWait), reason: reason, why: why}
}

// release gives a wake's room back (r.mu held): to the oldest queued wake, if any.
func (r *EndpointRouter) release(st *endpointState) {
	if len(st.waiting) > 0 && (st.ep.MaxInFlight <= 0 || st.inFlight <= st.ep.MaxInFlight) {
		q := st.waiting[0]
		st.waiting[0] = nil
		st.waiting = st.waiting[1:]
		q.granted = true // inFlight stays: the room passes from us to it
		close(q.ready)
		r.queuesChanged(-1)
		return
	}
	st.inFlight--
}

// Loads reports the endpoints queuing on this node, at most limit of them, busiest
// first (domain.BusiestEndpoints): those with wakes waiting for room or for their turn,
// or with as many wakes in flight as their max_in_flight; and the shared wake URL when
// it is queuing (owner and name empty). InFlight leaves out the wakes
// that hold room but wait for their turn (Queued counts them).
func (r *EndpointRouter) Loads(limit int) []domain.EndpointLoad {
	r.mu.Lock()
	var loads []domain.EndpointLoad
	for key, st := range r.endpoints {
		queued := len(st.waiting) + st.pacing
		full := st.ep.MaxInFlight > 0 && st.inFlight >= st.ep.MaxInFlight
		if queued == 0 && !full {
			continue
		}
		loads = append(loads, domain.EndpointLoad{Owner: key.owner, Name: key.name,
			Queued: queued, InFlight: st.inFlight - st.pacing, HeldBack: st.heldBack})
	}
	r.mu.Unlock()
	if r.shared != nil {
		if l, ok := r.shared.load(); ok {
			loads = append(loads, l)
		}
	}
	return domain.BusiestEndpoints(loads, limit)
}

// queuesChanged counts wakes entering (+1) or leaving (-1) a queue on this node and
// reports the queues to the metrics (r.mu held).
func (r *EndpointRouter) queuesChanged(delta int) {
	r.queuedWakes += delta
	endpoints := 0
	if r.queuedWakes > 0 {
		for _, st := range r.endpoints {
			if len(st.waiting)+st.pacing > 0 {
				endpoints++
			}
		}
	}
	r.cfg.Metrics.EndpointQueues(endpoints, r.queuedWakes)
}

// settle releases the wake's room and feeds the breaker. A wake the caller gave up on
// (shutdown), or one the egress policy refused, says nothing about the receiver; a 410
// Gone is a receiver that answered.
func (r *EndpointRouter) settle(ctx context.Context, st *endpointState, err error, probe bool, took time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.release(st)
	st.pace.observe(took)
	if probe {
		st.probing = false
	}
	var verdict ports.ReceiverVerdict
	var refused *domain.EgressError
	switch {
	case errors.As(err, &refused):
		return
	case ctx.Err() != nil && err != nil && !errors.Is(context.Cause(ctx), errDeliveryTimeout):
		// Cut short by the node (shutdown abandoned it), not failed by the receiver: the
		// breaker learns nothing. A wake that ran out its delivery timeout did fail: with
		// the endpoint's own timeout equal to the node's (serve's default), the node's
		// deadline fires first, and skipping it kept a hung endpoint's breaker shut.
		return
	case err == nil, errors.As(err, &verdict) && verdict.Gone():
		if !st.openUntil.IsZero() {
			r.cfg.Metrics.EndpointBreaker(false)
			r.cfg.Log.Info("endpoint breaker closed", zap.String("owner", st.ep.Owner), zap.String("endpoint", st.ep.Name))
		}
		st.failures, st.openUntil, st.cooldown = 0, time.Time{}, 0
	default:
		st.failures++
		switch {
		case probe:
			st.cooldown = min(2*st.cooldown, r.cfg.BreakerMaxCooldown)
		case st.openUntil.IsZero() && st.failures >= r.cfg.BreakerFailures:
			st.cooldown = r.cfg.BreakerCooldown
			r.cfg.Metrics.EndpointBreaker(true)
		default:
			return
		}
		st.openUntil = time.Now().Add(st.cooldown)
		r.cfg.Log.Warn("endpoint breaker open", zap.String("owner", st.ep.Owner), zap.String("endpoint", st.ep.Name),
			zap.Int("failures_in_a_row", st.failures), zap.Duration("for", st.cooldown), zap.Error(err))
	}
}

// endpoint returns the state of the owner's endpoint, reading it from the source when
// it is new here or the endpoints changed since.
func (r *EndpointRouter) endpoint(ctx context.Context, owner, name string) (*endpointState, error) {
	r.refresh(ctx)
	key := endpointKey{owner, name}
	r.mu.Lock()
	st := r.endpoints[key]
	fresh := st != nil && !st.stale
	r.mu.Unlock()
	if !fresh {
		// A burst of wakes for an endpoint not read yet (a node's first, or after a
		// change) reads and builds it once, not once per wake: a thousand concurrent
		// reads of one row held a burst's first wakes back by a tenth of a second.
		v, err, _ := r.reads.Do(owner+"\x00"+name, func() (any, error) { return r.load(ctx, key) })
		if err != nil {
			return nil, err
		}
		st = v.(*endpointState)
	}
	r.mu.Lock()
	missing := st.missing
	r.mu.Unlock()
	if missing != nil {
		return nil, missing
	}
	return st, nil
}

// load reads the endpoint and (re)builds its waker, keeping its in-flight count and
// breaker across changes.
func (r *EndpointRouter) load(ctx context.Context, key endpointKey) (*endpointState, error) {
	ep, err := r.source.GetEndpoint(ctx, key.owner, key.name)
	var missing error
	switch {
	case errors.Is(err, ports.ErrNotFound):
		missing = fmt.Errorf("endpoint %q of owner %q does not exist", key.name, key.owner)
	case err != nil:
		return nil, fmt.Errorf("reading endpoint %q: %w", key.name, err)
	}
	var waker, notices ports.Waker
	if missing == nil {
		if waker, err = r.build(ep); err != nil {
			return nil, fmt.Errorf("endpoint %q: %w", key.name, err)
		}
		if ep.FailureURL != "" {
			at := ep
			at.URL = ep.FailureURL
			if notices, err = r.build(at); err != nil {
				return nil, fmt.Errorf("endpoint %q failure_url: %w", key.name, err)
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.endpoints[key]
	if st == nil {
		st = &endpointState{}
		r.endpoints[key] = st
	}
	for _, w := range []ports.Waker{st.waker, st.notices} {
		if old, ok := w.(interface{ Close() }); ok {
			old.Close() // idle connections only: wakes in flight finish
		}
	}
	st.ep, st.waker, st.notices, st.missing, st.stale = ep, waker, notices, missing, false
	st.limiter = nil
	if ep.RatePerSecond > 0 {
		// A burst of one second's worth, at least one: a receiver asked to take N a
		// second gets no more than N in any second.
		st.limiter = rate.NewLimiter(rate.Limit(ep.RatePerSecond), max(1, int(ep.RatePerSecond)))
	}
	return st, nil
}

// refresh marks every endpoint stale when the endpoints' state value moved (read at
// most once per Refresh).
func (r *EndpointRouter) refresh(ctx context.Context) {
	if !r.watch.moved(ctx) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, st := range r.endpoints {
		st.stale = true
	}
}
