// Package dispatch is the hot path: the Dispatcher claims due alarms under a lease,
// delivers their wakes (the delivery pool, owners in turn, the per-owner cap) and
// applies the outcomes as they end; the EndpointRouter keeps each owner's endpoint to
// its room, rate and breaker. It imports only the kernel (app), domain and ports.
package dispatch

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/internal/wakelag"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Dispatcher claims due alarms, delivers their wakes and applies the outcomes.
//
// The loop: claim up to min(the adaptive claim size (see claimSize), free delivery
// slots) → hand the batch to a goroutine that (at-most-once: commits the advance)
// delivers every wake concurrently, decides each outcome and applies the whole batch of transitions in one store call. The loop
// does not wait for that: it claims again at once while slots are free and the last
// claim was full (pipelining) or came from a dense stream (denseStream), and otherwise
// sleeps until the next due time, a hint or the tick, whichever is first.
type Dispatcher struct {
	store   Store
	waker   ports.Waker
	clock   *app.StoreClock
	hints   *app.Hints
	cfg     Config
	metrics ports.Metrics
	log     *zap.Logger

	inProcess func(domain.Alarm) bool // whose wakes run in this process, each under a deadline of its own
	slots     chan struct{}           // one token per wake in flight
	pool      *deliveryPool           // runs the wakes; as many workers as slots at most
	owners    *ownerGate              // per-owner in-flight cap
	inflight  sync.WaitGroup
	stats     Stats
	lag       wakelag.Histogram // wake lags, for the heartbeat's percentiles
	pauses    pauseEnds         // resumes series whose pause has ended, once a tick
	// The idle loop's state: the last next due time read, whether the last claim was a
	// lease sweep (so the next wait uses it instead of reading it again), and the
	// wake-ups by the tick alone so far.
	next      time.Time
	nextOK    bool
	sweeping  bool
	idleTicks int
	calendars *calendarCache // the owners' calendars, for series naming some; nil: none
}

// New builds a dispatcher; cfg must pass Validate. hints may be shared with
// Alarms so creates on this node wake it at once.
func New(store Store, waker ports.Waker, clock *app.StoreClock, hints *app.Hints, cfg Config, log *zap.Logger) (*Dispatcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if hints == nil {
		hints = app.NewHints()
	}
	if log == nil {
		log = zap.NewNop()
	}
	metrics := cfg.Metrics
	if metrics == nil {
		metrics = ports.NopMetrics{}
	}
	return &Dispatcher{
		store: store, waker: waker, clock: clock, hints: hints, cfg: cfg, metrics: metrics,
		inProcess: inProcessWakes(waker),
		log:       log.With(zap.String("worker", cfg.Worker)),
		slots:     make(chan struct{}, cfg.Concurrency),
		pool:      newDeliveryPool(cfg.Concurrency),
		owners:    newOwnerGate(cfg.ownerCap()),
		calendars: newCalendarCache(cfg.Calendars),
	}, nil
}

// Config is the configuration the dispatcher runs with.
func (d *Dispatcher) Config() Config { return d.cfg }

// Stats returns the counters so far.
func (d *Dispatcher) Stats() StatsSnapshot { return d.stats.snapshot() }

// LagCounts is the cumulative wake lag histogram (StatsSource).
func (d *Dispatcher) LagCounts() []int64 { return d.lag.Snapshot() }

// WorkerStats is what this node's heartbeat reports (StatsSource), with the busiest
// endpoints when the waker queues wakes per endpoint (an EndpointRouter).
func (d *Dispatcher) WorkerStats() domain.WorkerStats {
	s := d.stats.snapshot()
	st := domain.WorkerStats{
		InFlight:  len(d.slots),
		Claimed:   s.Claimed,
		Delivered: s.Delivered,
		Failed:    s.Failed,
		Stale:     s.Stale,
	}
	type endpointLoads interface {
		Loads(limit int) []domain.EndpointLoad
	}
	if l, ok := d.waker.(endpointLoads); ok {
		st.Endpoints = l.Loads(domain.MaxWorkerEndpoints)
	}
	return st
}

// Run dispatches until ctx is done, then stops claiming and drains: in-flight wakes get
// DrainTimeout to finish and have their outcomes applied. A wake still running after
// that is abandoned without an outcome; its alarm keeps the lease and is fired again
// once the lease expires. Run returns nil after a clean drain.
func (d *Dispatcher) Run(ctx context.Context) error {
	if d.store.Capabilities().WakeHints {
		go d.forwardStoreHints(ctx)
	}
	// Deliveries and applies outlive ctx (they are drained); abandon cuts deliveries
	// short when the drain timeout passes.
	work, abandon := context.WithCancelCause(context.WithoutCancel(ctx))
	defer abandon(nil)

	defer d.pool.close() // after the drain: no batch delivers any more

	// Failed claims back off up to claimRetryCap: a node finds its database again at
	// most that long after it is back, and a claim every second or two per node is
	// nothing to a database that is down.
	errWait := newRetryDelay(50*time.Millisecond, claimRetryCap)
	size := newClaimSize(d.cfg.Batch)
	var fair fairTurn
	for ctx.Err() == nil {
		if d.cfg.Gate != nil && !d.cfg.Gate.Wait(ctx) {
			break // paused cluster-wide until ctx ended
		}
		d.pauses.run(ctx, d)
		want := size.want()
		if !d.cfg.UnfairClaims {
			want = fair.size(want, time.Now())
		}
		n, ok := d.reserve(ctx, want)
		if !ok {
			break
		}
		start := time.Now()
		claimCtx, cancel := context.WithTimeout(ctx, d.cfg.storeTimeout())
		params := ports.ClaimParams{Worker: d.cfg.Worker, Lease: d.cfg.Lease, Batch: n}
		if !d.cfg.UnfairClaims {
			params.Fair = fair.params(n)
		}
		claimed, err := d.store.ClaimDue(claimCtx, params)
		cancel()
		traced := d.traceClaim(work, start, len(claimed.Alarms), err)
		if err != nil {
			d.release(n)
			if ctx.Err() != nil {
				break
			}
			d.stats.claimErrors.Add(1)
			wait := errWait.next()
			d.log.Warn("claim failed; retrying", zap.Error(err), zap.Duration("retry_in", wait))
			sleepFor(ctx, wait)
			continue
		}
		errWait.reset()
		d.clock.Observe(claimed.Now, start, time.Now())
		got := len(claimed.Alarms)
		d.release(n - got)
		size.observe(n, got)
		took := time.Since(start)
		d.stats.claims.Add(1)
		d.stats.claimNanos.Add(int64(took))
		d.metrics.Claimed(got, took)
		d.stats.claimed.Add(int64(got))
		owners := countOwners(claimed.Alarms)
		d.metrics.ClaimOwners(owners)
		fair.served(owners, time.Now())
		if got > 0 {
			d.inflight.Add(1)
			go d.fire(traced, claimed.Alarms)
		}
		if more := fair.observe(params, claimed); more || got == n {
			continue // more may be due right now
		}
		if denseStream(claimed.Alarms, took) {
			d.stats.denseClaims.Add(1)
			continue // the next is most likely due before NextDue would answer
		}
		d.idle(ctx)
	}
	return d.drain(abandon)
}

// claimRetryCap bounds the wait between two failed claims (jittered between half of it
// and all of it).
const claimRetryCap = 2 * time.Second

// reserve takes at least one delivery slot (waiting for one) and as many more as are
// free, up to want. It returns false when ctx ends first.
func (d *Dispatcher) reserve(ctx context.Context, want int) (int, bool) {
	select {
	case d.slots <- struct{}{}:
	case <-ctx.Done():
		return 0, false
	}
	n := 1
	for n < want {
		select {
		case d.slots <- struct{}{}:
			n++
		default:
			return n, true
		}
	}
	return n, true
}

func (d *Dispatcher) release(n int) {
	for range n {
		<-d.slots
	}
}

// idle sleeps until something may be due: the next due alarm's time, a hint of one,
// ctx done. An idle node makes one store call a tick: a wake-up by the tick alone
// reads the next due time and claims only when that says something is due, except on
// every leaseSweepTicks-th, which claims instead (NextDue leaves leased rows out, so
// only a claim finds a lease that ran out on a node that died) and then sleeps on the
// last next due time read.
//
// A hint only ever brings the wake-up forward: a stream of creates each due a little
// later than the one before must not push back the instant an earlier one, or the
// next due alarm, is due at.
func (d *Dispatcher) idle(ctx context.Context) {
	for {
		wait := d.nextWait(ctx, d.sweeping)
		d.sweeping = false
		if wait <= 0 || d.sleep(ctx, wait) {
			return
		}
		d.idleTicks++
		if d.idleTicks%leaseSweepTicks == 0 {
			d.sweeping = true
			return
		}
		d.pauses.run(ctx, d)
	}
}

// leaseSweepTicks: an idle node claims on every this-many-th wake-up by the tick, to
// find leases that ran out; the others only read the next due time.
const leaseSweepTicks = 5

// nextWait is how long to sleep: until the next due time (read from the store, or the
// last one read when cached), at most a tick.
func (d *Dispatcher) nextWait(ctx context.Context, cached bool) time.Duration {
	wait := d.cfg.Tick
	if !cached {
		nextCtx, cancel := context.WithTimeout(ctx, d.cfg.storeTimeout())
		next, ok, err := d.store.NextDue(nextCtx)
		cancel()
		d.stats.nextDueReads.Add(1)
		d.metrics.NextDueRead()
		if err != nil {
			if ctx.Err() == nil {
				d.log.Warn("reading next due time failed; sleeping one tick", zap.Error(err))
			}
			next, ok = time.Time{}, false
		}
		d.next, d.nextOK = next, ok
	}
	if d.nextOK {
		wait = min(wait, max(d.next.Sub(d.clock.Now()), 0))
	}
	return wait
}

// sleep waits up to wait, and less when a hint brings something due sooner. It says
// whether to claim: true when the wait ended at a known due time, at a hinted one or
// with ctx; false when only the tick passed.
func (d *Dispatcher) sleep(ctx context.Context, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	due := wait < d.cfg.Tick // the wait ends at a due time, not at the tick
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return true
		case <-timer.C:
			return due
		case <-d.hints.C():
			at := d.hints.Take()
			if at.IsZero() {
				continue
			}
			until := at.Sub(d.clock.Now())
			if until <= 0 {
				return true
			}
			if wake := time.Now().Add(until); wake.Before(deadline) {
				deadline, due = wake, true
				timer.Reset(until)
			}
			// Later than this wait, it is still the earliest due time known when it is
			// earlier than the last one read: the wait after a lease sweep reads none.
			if !d.nextOK || at.Before(d.next) {
				d.next, d.nextOK = at, true
			}
		}
	}
}

// drain waits for in-flight batches, abandoning deliveries after DrainTimeout.
func (d *Dispatcher) drain(abandon context.CancelCauseFunc) error {
	done := make(chan struct{})
	go func() { d.inflight.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(d.cfg.DrainTimeout):
	}
	d.log.Warn("drain timeout passed; abandoning in-flight wakes (their leases will expire and they will be fired again)",
		zap.Duration("drain_timeout", d.cfg.DrainTimeout))
	abandon(errAbandoned)
	<-done
	return nil
}

func (d *Dispatcher) forwardStoreHints(ctx context.Context) {
	ch, err := d.store.SubscribeHints(ctx)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			d.log.Warn("subscribing to wake hints failed; relying on polling", zap.Error(err))
		}
		return
	}
	for at := range ch {
		d.hints.Hint(at)
	}
}

func sleepFor(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// inProcessWakes says which alarms' wakes w runs as a Go call in this process: all of
// them for an InProcessWaker; behind an EndpointRouter whose default is one, those that
// name no endpoint (the others are webhooks to their endpoints).
func inProcessWakes(w ports.Waker) func(domain.Alarm) bool {
	if _, ok := w.(InProcessWaker); ok {
		return func(domain.Alarm) bool { return true }
	}
	if r, ok := w.(*EndpointRouter); ok {
		if _, ok := r.def.(InProcessWaker); ok {
			return func(a domain.Alarm) bool { return a.Endpoint == "" }
		}
	}
	return func(domain.Alarm) bool { return false }
}
