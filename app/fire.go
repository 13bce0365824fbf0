package app

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// fire delivers one claimed batch and applies its outcomes. It owns len(alarms) slots
// and releases them when the batch is done.
func (d *Dispatcher) fire(work context.Context, alarms []domain.Alarm) {
	defer d.inflight.Done()
	defer d.release(len(alarms))

	now := d.clock.Now()
	firings := make([]domain.Firing, len(alarms))
	send := make([]bool, len(alarms))
	var advances []domain.Transition
	for i, a := range alarms {
		firings[i] = domain.Begin(a, now)
		send[i] = true
		if adv := firings[i].Advance; adv != nil {
			advances = append(advances, *adv)
		}
	}
	if len(advances) > 0 {
		d.commitAdvances(work, firings, send, advances)
	}

	outcomes, done := d.deliver(work, firings, send)

	ts := make([]domain.Transition, 0, len(alarms))
	decided := d.clock.Now()
	for i := range outcomes {
		if !done[i] {
			continue // not sent (advance not committed) or abandoned: the lease decides
		}
		ts = append(ts, domain.Decide(firings[i], outcomes[i], decided, d.cfg.Policy))
	}
	if len(ts) > 0 {
		d.apply(ts)
	}
}

// commitAdvances applies the at-most-once advances before any wake is sent. A wake whose
// advance did not commit (stale, or the store failed) is not sent: at-most-once means
// the advance must be durable first. Those alarms keep their lease; if the store was
// down, the lease expires and they are claimed again.
func (d *Dispatcher) commitAdvances(work context.Context, firings []domain.Firing, send []bool, advances []domain.Transition) {
	stale, err := d.applyOnce(work, advances)
	for i, f := range firings {
		if f.Advance == nil {
			continue
		}
		if err != nil || stale[f.Alarm.ID] {
			send[i] = false
			d.stats.advanceSkipped.Add(1)
		}
	}
	if err != nil {
		d.log.Warn("at-most-once advance did not commit; those wakes are not sent and will be claimed again after the lease",
			zap.Int("alarms", len(advances)), zap.Error(err))
	}
}

// deliver sends every wake marked in send concurrently on the delivery pool (the slots
// were reserved at claim time) and returns each outcome; done[i] is false for a wake
// not sent or abandoned at shutdown.
//
// The whole batch shares one deadline, DeliveryTimeout from now: its wakes start
// together (a slot, and so a worker, is free for each), so this is every wake's own
// timeout give or take microseconds, never later, and it costs one timer per batch
// instead of one per wake.
func (d *Dispatcher) deliver(work context.Context, firings []domain.Firing, send []bool) ([]domain.Outcome, []bool) {
	outcomes := make([]domain.Outcome, len(firings))
	done := make([]bool, len(firings))
	idx := make([]int, 0, len(firings))
	for i := range firings {
		if send[i] {
			idx = append(idx, i)
		}
	}
	ctx, cancel := context.WithTimeout(work, d.cfg.DeliveryTimeout)
	defer cancel()
	d.pool.runAll(ctx, idx, func(ctx context.Context, i int) {
		outcomes[i], done[i] = d.deliverOne(work, ctx, firings[i].Alarm)
	})
	return outcomes, done
}

// deliverOne sends one wake under ctx (the batch's deadline) and reports its outcome;
// ok is false when shutdown (work ending) cut it short.
func (d *Dispatcher) deliverOne(work, ctx context.Context, a domain.Alarm) (out domain.Outcome, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			d.stats.failed.Add(1)
			d.metrics.Woke(ports.WakeFailed, d.clock.Now().Sub(a.NextFireAt), 0)
			out, ok = domain.DeliveryFailed(fmt.Sprintf("waker panicked: %v", r)), true
		}
	}()
	start := d.clock.Now()
	err := d.waker.Wake(ctx, domain.NewWake(a, start))
	end := d.clock.Now()
	switch {
	case err == nil:
		d.stats.delivered.Add(1)
		d.metrics.Woke(ports.WakeDelivered, end.Sub(a.NextFireAt), end.Sub(start))
		d.lag.observe(end.Sub(a.NextFireAt))
		return domain.Delivered(), true
	case work.Err() != nil:
		// Shutdown cut the wake short: we do not know whether it arrived, so we record
		// nothing and let the lease decide (at-least-once: fired again).
		d.stats.abandoned.Add(1)
		return domain.Outcome{}, false
	default:
		d.stats.failed.Add(1)
		d.metrics.Woke(ports.WakeFailed, end.Sub(a.NextFireAt), end.Sub(start))
		d.lag.observe(end.Sub(a.NextFireAt))
		return domain.DeliveryFailed(err.Error()), true
	}
}

// apply writes outcomes, retrying while the lease still protects them. Giving up is
// safe for at-least-once alarms (the lease expires and they fire again); an
// at-most-once outcome that is never recorded leaves the advanced alarm leased, which
// is logged here with its ids.
func (d *Dispatcher) apply(ts []domain.Transition) {
	deadline := time.Now().Add(d.cfg.Lease / 2)
	wait := newRetryDelay(50*time.Millisecond, 2*time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), max(time.Until(deadline), time.Second))
		_, err := d.applyOnce(ctx, ts)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			d.stats.applyErrors.Add(1)
			ids := make([]string, len(ts))
			for i, t := range ts {
				ids[i] = t.AlarmID
			}
			d.log.Error("applying outcomes failed; leases will expire and at-least-once wakes will be fired again",
				zap.Error(err), zap.Strings("alarm_ids", ids))
			return
		}
		w := wait.next()
		d.log.Warn("applying outcomes failed; retrying", zap.Error(err), zap.Duration("retry_in", w), zap.Int("transitions", len(ts)))
		time.Sleep(w)
	}
}

// applyOnce is one Apply call with its bookkeeping; it returns the stale ids.
func (d *Dispatcher) applyOnce(ctx context.Context, ts []domain.Transition) (map[string]bool, error) {
	d.stats.applyCalls.Add(1)
	res, err := d.store.Apply(ctx, ts)
	if err != nil {
		return nil, err
	}
	d.stats.applied.Add(int64(res.Applied))
	if len(res.Stale) == 0 {
		return nil, nil
	}
	d.stats.stale.Add(int64(len(res.Stale)))
	d.metrics.Stale(len(res.Stale))
	d.log.Warn("outcomes refused by the lease fence (another worker or an owner action took the alarm); nothing written for them",
		zap.Strings("alarm_ids", res.Stale))
	stale := make(map[string]bool, len(res.Stale))
	for _, id := range res.Stale {
		stale[id] = true
	}
	return stale, nil
}
