package bench

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/owners"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// steadyCreator is the steady mode's client: every 10ms it creates the alarms its plan
// says (steadyPlan: --rate a second for --duration, each due --lead after it is created;
// the fairness mode's quietTrickle: the quiet owners' alarms). It creates them the way
// a client would: through the real create path (owners.Alarms.CreateBatch:
// validation, ids, one store transaction per tick), or, with --via api, as one POST
// /v1/alarms/batch per tick (of up to 1,000 alarms) to an HTTP server the bench runs on
// the node's store. Its transactions are counted and subtracted from the dispatchers'.
//
// With a node in the bench's own process it writes through that node's store, as the
// API of `chronos serve` does: one process, one store. On SQLite this matters most:
// a second store is a second writer, and the two then take turns on the file lock by
// sleeping on SQLITE_BUSY, which no production node does.
type steadyCreator struct {
	cfg     Config
	plan    creationPlan
	store   ports.Store
	shared  bool // store is a node's; the node closes it
	alarms  *owners.Alarms
	api     *apiServer // --via api
	clock   *app.StoreClock
	created atomic.Int64
	txns    atomic.Int64
	errors  atomic.Int64
	done    atomic.Bool
	stopped chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	started atomic.Bool
}

// creationPlan says what a creator creates at each tick.
type creationPlan interface {
	// next returns the specs to create at a tick at now (the store's clock), elapsed
	// after the creator started, when created alarms have been made so far; done: this
	// tick is the last, if its creates succeed.
	next(now time.Time, elapsed time.Duration, created int64) (specs []domain.Spec, done bool, err error)
}

// steadyPlan is steady mode's: --rate a second for --duration, each alarm due --lead
// after the tick that creates it.
type steadyPlan struct{ cfg Config }

func (p steadyPlan) next(now time.Time, elapsed time.Duration, created int64) ([]domain.Spec, bool, error) {
	elapsed = min(elapsed, p.cfg.Duration)
	done := elapsed >= p.cfg.Duration
	n := int64(elapsed.Seconds()*float64(p.cfg.Rate)) - created
	if n <= 0 {
		return nil, done, nil
	}
	specs, err := BuildSpecs(int(n), p.cfg.Mix, now.Add(p.cfg.Lead), now.Add(p.cfg.Lead+creatorTick))
	return specs, done, err
}

// creatorTick is how often a creator creates what its plan says.
const creatorTick = 10 * time.Millisecond

// newSteadyCreator creates what plan says, through shared when it is not nil (an
// in-process node's store), else through a store of its own on url.
func newSteadyCreator(ctx context.Context, open func(context.Context, string, bool) (ports.Store, error), url string, shared ports.Store, cfg Config, plan creationPlan) (*steadyCreator, error) {
	s := shared
	if s == nil {
		if cfg.Via == "api" {
			return nil, errors.New("bench: --via api needs the node in the bench's process (one node, or --in-process)")
		}
		var err error
		if s, err = open(ctx, url, false); err != nil {
			return nil, err
		}
	}
	clock := app.NewStoreClock()
	if err := clock.Sync(ctx, s); err != nil {
		if shared == nil {
			_ = s.Close()
		}
		return nil, err
	}
	c := &steadyCreator{cfg: cfg, plan: plan, store: s, shared: shared != nil, clock: clock, stopped: make(chan struct{})}
	c.alarms = owners.NewAlarms(s, clock, nil, owners.AlarmsConfig{Defaults: domain.Defaults{MaxFailures: 5}}, nil)
	if cfg.Via == "api" {
		api, err := startAPI(ctx, s, c.alarms, clock)
		if err != nil {
			return nil, err
		}
		c.api = api
	}
	c.ctx, c.cancel = context.WithCancel(ctx)
	return c, nil
}

func (c *steadyCreator) run() {
	ctx := c.ctx
	defer close(c.stopped)
	defer c.done.Store(true)
	t := time.NewTicker(creatorTick)
	defer t.Stop()
	start := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		specs, done, err := c.plan.next(c.clock.Now(), time.Since(start), c.created.Load())
		if err == nil && len(specs) > 0 {
			err = c.create(ctx, specs)
		}
		if err != nil {
			c.errors.Add(1)
			continue
		}
		c.created.Add(int64(len(specs)))
		if done {
			return
		}
	}
}

// create writes one tick's alarms, at most owners.MaxBatchCreate per call.
func (c *steadyCreator) create(ctx context.Context, specs []domain.Spec) error {
	for chunk := range slices.Chunk(specs, owners.MaxBatchCreate) {
		c.txns.Add(1)
		if c.api != nil {
			if err := c.api.post(ctx, SpecsJSON(chunk)); err != nil {
				return err
			}
			continue
		}
		rs, err := c.alarms.CreateBatch(ctx, chunk)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.Err != nil {
				return r.Err
			}
		}
	}
	return nil
}

func (c *steadyCreator) finished() bool { return c.done.Load() }

func (c *steadyCreator) stop() {
	c.cancel()
	if c.started.Load() {
		<-c.stopped
	}
	if c.api != nil {
		c.api.close()
	}
	if !c.shared {
		_ = c.store.Close()
	}
}
