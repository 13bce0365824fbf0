package chores

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/ports"
)

// RetentionLease names the cluster lease (ports.LeaseStore) under which one node at a
// time runs retention.
const RetentionLease = "retention"

// RetentionConfig is the retention policy and how hard retention may work.
type RetentionConfig struct {
	// Retention: terminal alarms whose last change, and events, older than this are
	// deleted. 0 keeps everything (Run returns at once).
	Retention time.Duration
	// EventsPerAlarm caps each alarm's history to its newest events; 0: no cap.
	EventsPerAlarm int
	// Holder names this node in the retention lease (its worker id).
	Holder string
	// Batch is the most alarms one DeleteExpiredAlarms call deletes (with their events);
	// SweepStep the alarms one TrimEvents step covers. 0 takes the defaults.
	Batch, SweepStep int
	// Interval is the pause between passes once a pass has caught up; 0 is a tenth of
	// Retention, between a second and a minute.
	Interval time.Duration
	// Metrics counts the deleted rows; nil: none.
	Metrics ports.Metrics
}

// Retention defaults. A batch of 1,000 alarms and their ~3,000 events deletes in
// milliseconds on every store, short enough that dispatching never waits long behind
// it, and large enough that its per-statement cost is small.
const (
	defaultRetentionBatch = 1000
	defaultSweepStep      = 500
	retentionLeaseTTL     = time.Minute
)

// MinRetention is the shortest retention accepted: below it history would be gone
// before an operator could read it, and the passes would never rest.
const MinRetention = time.Minute

func (c RetentionConfig) withDefaults() RetentionConfig {
	if c.Batch <= 0 {
		c.Batch = defaultRetentionBatch
	}
	if c.SweepStep <= 0 {
		c.SweepStep = defaultSweepStep
	}
	if c.Interval <= 0 {
		c.Interval = min(max(c.Retention/10, time.Second), time.Minute)
	}
	if c.Metrics == nil {
		c.Metrics = ports.NopMetrics{}
	}
	return c
}

// Validate refuses a policy that would delete what users rely on.
func (c RetentionConfig) Validate() error {
	var errs []error
	if c.Retention < 0 || (c.Retention > 0 && c.Retention < MinRetention) {
		errs = append(errs, fmt.Errorf("retention must be 0 (keep everything) or at least %s, got %s", MinRetention, c.Retention))
	}
	if c.EventsPerAlarm < 0 {
		errs = append(errs, fmt.Errorf("events per alarm must be 0 (no cap) or positive, got %d", c.EventsPerAlarm))
	}
	if c.Retention > 0 && c.Holder == "" {
		errs = append(errs, errors.New("retention needs the node's worker id to hold its lease"))
	}
	return errors.Join(errs...)
}

// Retention deletes what the policy no longer keeps: terminal alarms (with their
// events) whose last change is older than the retention, events older than it, and each
// alarm's events beyond the cap. One node at a time: it works only while it holds the
// retention lease in the store, so N nodes never race, and a node that dies mid-pass
// hands the chore over when its lease runs out; the lease is given up after each pass,
// and the cluster's last pass (kept in the store) says when the next is due. It works in bounded batches and rests as long as
// each batch took, so it uses at most half of the time of one store connection.
type Retention struct {
	store RetentionStore
	cfg   RetentionConfig
	log   *zap.Logger

	passMu        sync.Mutex // one pass at a time on this node: Run's and an admin's
	sweepAfter    string     // the events sweep's cursor during a pass; "" starts it over
	deletedAlarms atomic.Int64
	deletedEvents atomic.Int64
}

// NewRetention builds retention; cfg must pass Validate.
func NewRetention(store RetentionStore, cfg RetentionConfig, log *zap.Logger) (*Retention, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &Retention{store: store, cfg: cfg.withDefaults(), log: log}, nil
}

// Config is the policy retention runs with (defaults filled in).
func (r *Retention) Config() RetentionConfig { return r.cfg }

// Deleted counts the alarms and events this node has deleted.
func (r *Retention) Deleted() (alarms, events int64) {
	return r.deletedAlarms.Load(), r.deletedEvents.Load()
}

// Run looks every Interval whether the cluster is due a pass (RunDue) until ctx is
// done. Store failures are logged and tried again at the next look.
func (r *Retention) Run(ctx context.Context) {
	if r.cfg.Retention == 0 {
		return
	}
	every(ctx, r.cfg.Interval, true, func(ctx context.Context) {
		if _, err := r.RunDue(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("retention pass failed; trying again at the next", zap.Error(err))
		}
	})
}

// RetentionPass is what one pass did.
type RetentionPass struct {
	Held          bool // this node held the lease; false: another node is doing it
	Alarms        int  // terminal alarms deleted (with their events)
	Events        int  // events deleted, with those alarms and by the sweep
	SweepComplete bool // the events sweep reached the last alarm in this pass
}

// RunOnce is one pass now, on this node, unless another node is running one (then it
// does nothing and says so: Held false). See pass.
func (r *Retention) RunOnce(ctx context.Context) (RetentionPass, error) { return r.pass(ctx, true) }

// RunDue is one pass when the cluster's last pass (on any node) finished at least an
// Interval ago, and nothing otherwise: N nodes looking every Interval make about one
// pass per Interval between them, not N.
func (r *Retention) RunDue(ctx context.Context) (RetentionPass, error) { return r.pass(ctx, false) }

// pass takes the retention lease for as long as it works and gives it up after, so the
// lease means "a pass is running" and any node can run the next one (an admin's run
// reaches whichever node it is sent to). Inside the lease it reads the cluster's last
// pass: unless forced, it stops there when that pass is recent; else it deletes
// expired alarms until none is left, then advances the events sweep from where the
// last pass, on whatever node, left it, for up to half an interval of work. A pass is
// recorded for the cluster (RetentionStateName), failed or not.
func (r *Retention) pass(ctx context.Context, force bool) (pass RetentionPass, err error) {
	if r.cfg.Retention == 0 {
		return pass, nil // retention off: keep everything, whoever asks
	}
	r.passMu.Lock()
	defer r.passMu.Unlock()
	held, err := r.store.AcquireLease(ctx, RetentionLease, r.cfg.Holder, retentionLeaseTTL)
	if err != nil || !held {
		return pass, err
	}
	defer func() {
		release, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := r.store.ReleaseLease(release, RetentionLease, r.cfg.Holder); err != nil {
			r.log.Warn("releasing the retention lease failed; another node takes it when it expires", zap.Error(err))
		}
	}()
	last, ok, err := r.LastRun(ctx)
	if err != nil {
		return pass, err
	}
	if !force && ok && time.Since(last.FinishedAt) < r.cfg.Interval {
		return pass, nil // another node's pass was recent: not due yet
	}
	r.sweepAfter = last.SweepNext
	pass.Held = true
	start := time.Now()
	defer func() {
		r.report(pass, time.Since(start))
		r.record(ctx, pass, start, err)
	}()
	return r.runPass(ctx, pass)
}

// runPass is RunOnce's work once the lease is held.
func (r *Retention) runPass(ctx context.Context, pass RetentionPass) (RetentionPass, error) {
	now, err := r.store.Now(ctx)
	if err != nil {
		return pass, err
	}
	cutoff := now.Add(-r.cfg.Retention)
	for {
		if ok, err := r.renew(ctx); !ok {
			return pass, err
		}
		t0 := time.Now()
		d, err := r.store.DeleteExpiredAlarms(ctx, ports.ExpiredAlarms{Before: cutoff, Limit: r.cfg.Batch})
		if err != nil {
			return pass, err
		}
		r.count(&pass, d.Alarms, d.Events)
		if d.Alarms < r.cfg.Batch {
			break
		}
		if err := r.rest(ctx, time.Since(t0)); err != nil {
			return pass, err
		}
	}

	var worked time.Duration
	for worked < r.cfg.Interval/2 {
		if ok, err := r.renew(ctx); !ok {
			return pass, err
		}
		t0 := time.Now()
		tr, err := r.store.TrimEvents(ctx, ports.TrimEvents{
			After: r.sweepAfter, Alarms: r.cfg.SweepStep, Before: cutoff, Keep: r.cfg.EventsPerAlarm,
		})
		if err != nil {
			return pass, err
		}
		took := time.Since(t0)
		worked += took
		r.count(&pass, 0, tr.Events)
		r.sweepAfter = tr.Next
		if tr.Next == "" {
			pass.SweepComplete = true
			break
		}
		if err := r.rest(ctx, took); err != nil {
			return pass, err
		}
	}
	return pass, nil
}

// renew keeps the lease for the next batch; false when it was lost (this node paused
// longer than the lease, and another took over), and the pass stops.
func (r *Retention) renew(ctx context.Context) (bool, error) {
	held, err := r.store.AcquireLease(ctx, RetentionLease, r.cfg.Holder, retentionLeaseTTL)
	if err == nil && !held {
		r.log.Warn("the retention lease passed to another node mid-pass; stopping this pass")
	}
	return held && err == nil, err
}

// rest waits as long as the last batch took: retention works at most half the time.
func (r *Retention) rest(ctx context.Context, took time.Duration) error {
	return sleepCtx(ctx, took)
}

func (r *Retention) count(pass *RetentionPass, alarms, events int) {
	pass.Alarms += alarms
	pass.Events += events
	r.deletedAlarms.Add(int64(alarms))
	r.deletedEvents.Add(int64(events))
	if alarms > 0 {
		r.cfg.Metrics.RetentionDeleted("alarms", alarms)
	}
	if events > 0 {
		r.cfg.Metrics.RetentionDeleted("alarm_events", events)
	}
}

func (r *Retention) report(pass RetentionPass, took time.Duration) {
	if pass.Alarms == 0 && pass.Events == 0 {
		return
	}
	r.log.Info("retention deleted", zap.Int("alarms", pass.Alarms), zap.Int("events", pass.Events),
		zap.Duration("retention", r.cfg.Retention), zap.Int("events_per_alarm", r.cfg.EventsPerAlarm),
		zap.Bool("sweep_complete", pass.SweepComplete), zap.Duration("took", took))
}

// sleepCtx sleeps d or until ctx is done, and then returns ctx's error.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
