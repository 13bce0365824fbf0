package chores

import (
	"context"
	"encoding/json"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// CountSamplerLease names the cluster lease under which one node samples the alarm
// counts for the metrics.
const CountSamplerLease = "alarm-counts"

// CountSampler feeds ports.Metrics.AlarmCounts: one node of the cluster at a time (a
// lease) counts the alarms by status and the due backlog every interval. Counting reads
// every alarm's status, so one node doing it every 15 s is the budget, not every node
// on every scrape; the other nodes withdraw their sample so the cluster reports one.
type CountSampler struct {
	store    SamplerStore
	metrics  ports.Metrics
	holder   string
	interval time.Duration
	lease    time.Duration // the dispatcher's: a lease younger than this is live
	log      *zap.Logger
}

// NewCountSampler builds the sampler. holder is this node's worker id; lease is the
// dispatcher's lease (see ports.AlarmReader.CountAlarms).
func NewCountSampler(store SamplerStore, metrics ports.Metrics, holder string, interval, lease time.Duration, log *zap.Logger) *CountSampler {
	if log == nil {
		log = zap.NewNop()
	}
	return &CountSampler{store: store, metrics: metrics, holder: holder, interval: interval, lease: lease, log: log}
}

// Run samples every interval until ctx is done, then gives the lease up.
func (c *CountSampler) Run(ctx context.Context) {
	defer func() {
		stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = c.store.ReleaseLease(stop, CountSamplerLease, c.holder)
	}()
	every(ctx, c.interval, true, func(ctx context.Context) {
		// A sample outliving its lease (3 intervals) is void, and one stuck on a dead
		// connection would stop this node sampling for good.
		call, cancel := context.WithTimeout(ctx, 3*c.interval)
		err := c.SampleOnce(call)
		cancel()
		if err != nil && ctx.Err() == nil {
			c.log.Warn("sampling the alarm counts failed", zap.Error(err))
		}
	})
}

// SampleOnce takes a sample if this node holds (or gets) the lease, and withdraws its
// sample otherwise.
func (c *CountSampler) SampleOnce(ctx context.Context) error {
	held, err := c.store.AcquireLease(ctx, CountSamplerLease, c.holder, 3*c.interval)
	if err != nil || !held {
		c.metrics.AlarmCounts(ports.AlarmCounts{}, false)
		return err
	}
	counts, err := c.store.CountAlarms(ctx, c.lease)
	if err != nil {
		c.metrics.AlarmCounts(ports.AlarmCounts{}, false)
		return err
	}
	c.metrics.AlarmCounts(counts, true)
	c.share(ctx, counts)
	return nil
}

// CountsStateName is the ports.StateStore name under which the sampling node keeps its
// last counts, so that every node's admin overview (and the dashboard, which refreshes
// it every few seconds) reads them in one row instead of counting every alarm again.
const CountsStateName = "alarm-counts"

// sharedCounts is ports.AlarmCounts as stored.
type sharedCounts struct {
	ByStatus  map[domain.Status]int64 `json:"by_status"`
	Due       int64                   `json:"due"`
	OldestDue time.Time               `json:"oldest_due,omitzero"`
	Now       time.Time               `json:"now"`
}

func (c *CountSampler) share(ctx context.Context, counts ports.AlarmCounts) {
	b, err := json.Marshal(sharedCounts(counts))
	if err == nil {
		err = c.store.PutState(ctx, CountsStateName, string(b))
	}
	if err != nil && ctx.Err() == nil {
		c.log.Warn("sharing the alarm counts failed; overviews count for themselves meanwhile", zap.Error(err))
	}
}

// SharedCountsSince reads the last shared counts when they were taken at or after
// since; false otherwise (none yet, or too old: the sampling node stopped).
func SharedCountsSince(ctx context.Context, store ports.StateReader, since time.Time) (ports.AlarmCounts, bool) {
	st, ok, err := store.GetState(ctx, CountsStateName)
	if err != nil || !ok {
		return ports.AlarmCounts{}, false
	}
	var sc sharedCounts
	if json.Unmarshal([]byte(st.Value), &sc) != nil || sc.Now.Before(since) || sc.ByStatus == nil {
		return ports.AlarmCounts{}, false
	}
	return ports.AlarmCounts(sc), true
}
