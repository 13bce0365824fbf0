package bench

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// steadyCreator is the steady mode's client: every 10ms it creates the alarms due at
// --rate, each falling due --lead after it is created, for --duration. It creates them
// the way a client would: through the real create path (app.Alarms.CreateBatch:
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
	store   ports.Store
	shared  bool // store is a node's; the node closes it
	alarms  *app.Alarms
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

// newSteadyCreator writes through shared when it is not nil (an in-process node's
// store), else through a store of its own on url.
func newSteadyCreator(ctx context.Context, open func(context.Context, string, bool) (ports.Store, error), url string, shared ports.Store, cfg Config) (*steadyCreator, error) {
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
	c := &steadyCreator{cfg: cfg, store: s, shared: shared != nil, clock: clock, stopped: make(chan struct{})}
	c.alarms = app.NewAlarms(s, clock, nil, app.AlarmsConfig{Defaults: domain.Defaults{MaxFailures: 5}}, nil)
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
	const every = 10 * time.Millisecond
	t := time.NewTicker(every)
	defer t.Stop()
	start := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		elapsed := min(time.Since(start), c.cfg.Duration)
		due := int64(elapsed.Seconds() * float64(c.cfg.Rate))
		if n := due - c.created.Load(); n > 0 {
			now := c.clock.Now()
			specs, err := BuildSpecs(int(n), c.cfg.Mix, now.Add(c.cfg.Lead), now.Add(c.cfg.Lead+every))
			if err == nil {
				err = c.create(ctx, specs)
			}
			if err != nil {
				c.errors.Add(1)
				continue
			}
			c.created.Add(n)
		}
		if elapsed >= c.cfg.Duration {
			return
		}
	}
}

// create writes one tick's alarms, at most app.MaxBatchCreate per call.
func (c *steadyCreator) create(ctx context.Context, specs []domain.Spec) error {
	for chunk := range slices.Chunk(specs, app.MaxBatchCreate) {
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
