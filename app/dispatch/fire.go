package dispatch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// delivery is one alarm of a claimed batch on its way through fire.
type delivery struct {
	firing  domain.Firing
	send    bool // false: its at-most-once advance did not commit, so it is not sent
	outcome domain.Outcome
	decided bool // there is an outcome to record (false: not sent, or abandoned at shutdown)
}

// fire delivers one claimed batch and applies its outcomes as its wakes finish. It
// owns len(alarms) delivery slots and releases each with its wake's outcome, once that
// is applied: one slow wake holds its own slot and lease, not the batch's. work ends
// only when a drain gives up on in-flight wakes (its cause is then errAbandoned).
func (d *Dispatcher) fire(work context.Context, alarms []domain.Alarm) {
	defer d.inflight.Done()

	now := d.clock.Now()
	batch := make([]delivery, len(alarms))
	var advances []domain.Transition
	out := newOutcomeWindow(d, trace.SpanContextFromContext(work), len(alarms))
	for i, a := range alarms {
		batch[i] = delivery{firing: d.beginFiring(work, a, now), send: true}
		if skip := batch[i].firing.Skip; skip != nil {
			// The misfire policy or the series' calendars dropped this occurrence (or
			// it waits for its calendars): no wake, no attempt; its transition moves
			// the series on with the first outcomes.
			batch[i].send = false
			out.add(*skip)
		}
		if adv := batch[i].firing.Advance; adv != nil {
			advances = append(advances, *adv)
		}
	}
	if len(advances) > 0 {
		d.commitAdvances(work, batch, advances)
	}

	idx := make([]int, 0, len(batch))
	for i, w := range batch {
		if w.send {
			idx = append(idx, i)
		} else {
			out.done() // skipped, or its advance did not commit: its slot goes with the first apply
		}
	}
	ctx, cancel := context.WithTimeoutCause(work, d.cfg.DeliveryTimeout, errDeliveryTimeout)
	defer cancel()
	finished := make(chan int, len(idx)) // never blocks a wake: room for every one
	d.pool.queueAll(idx, func(i int) string { return batch[i].firing.Alarm.Owner }, func(i int) {
		w := &batch[i]
		w.outcome, w.decided = d.deliverFiring(ctx, work, &w.firing)
		finished <- i
	})
	for range idx {
		var i int
		select {
		case i = <-finished:
		case <-out.due():
			out.flush()
			i = <-finished
		}
		if w := &batch[i]; w.decided {
			out.add(d.heardNotice(domain.Decide(w.firing, w.outcome, d.clock.Now(), d.cfg.Policy)))
		} // else the lease decides: it expires and the alarm is claimed again
		out.done()
	}
	out.flush()
}

// heardNotice drops t's failure notice when its endpoint has no failure_url: nobody
// would receive it, and a notice sent nowhere must not be recorded as delivered. Only
// a waker that knows the endpoints (an EndpointRouter) can tell; with any other the
// notice is kept, and the waker gets it as a wake whose Notice is set.
func (d *Dispatcher) heardNotice(t domain.Transition) domain.Transition {
	type failureURLs interface {
		HasFailureURL(owner, endpoint string) bool
	}
	if n := t.Notice; n != nil {
		if f, ok := d.waker.(failureURLs); ok && !f.HasFailureURL(n.Owner, n.Endpoint) {
			t.Notice = nil
		}
	}
	return t
}

// deliverFiring sends one wake, unless its owner already has OwnerMaxInFlight wakes in
// flight on this node: then it is held back, not sent, due again at its owner's pace.
//
// Webhook wakes of one batch share one deadline, ctx's: DeliveryTimeout from when the
// batch was handed to the pool, whose workers are reserved for it (a slot, and so a
// worker, is free for each), so this is every wake's own timeout give or take
// microseconds, and it costs one timer per batch instead of one per wake. An
// in-process handler (InProcessWaker) gets a deadline of its own instead, which it may
// push back with ExtendLease.
func (d *Dispatcher) deliverFiring(ctx, work context.Context, f *domain.Firing) (domain.Outcome, bool) {
	owner, start := f.Alarm.Owner, time.Now()
	if held := d.owners.admit(owner, start); held != nil {
		d.stats.deferred.Add(1)
		d.metrics.Deferred(held.DeferReason())
		return domain.Deferred(held.DeferFor(), held.Error()), true
	}
	defer func() { d.owners.settle(owner, time.Since(start)) }()
	if d.inProcess(f.Alarm) {
		return d.deliverInProcess(work, f)
	}
	return d.deliverOne(ctx, f.Alarm)
}

// commitAdvances applies the at-most-once advances before any wake is sent. A wake whose
// advance did not commit (stale, or the store failed) is not sent: at-most-once means
// the advance must be durable first. Those alarms keep their lease; if the store was
// down, the lease expires and they are claimed again.
func (d *Dispatcher) commitAdvances(work context.Context, batch []delivery, advances []domain.Transition) {
	ctx, cancel := context.WithTimeout(work, d.cfg.storeTimeout())
	stale, err := d.applyOnce(ctx, advances)
	cancel()
	for i := range batch {
		w := &batch[i]
		if w.firing.Advance != nil && (err != nil || stale[w.firing.Alarm.ID]) {
			w.send = false
			d.stats.advanceSkipped.Add(1)
		}
	}
	if err != nil {
		d.log.Warn("at-most-once advance did not commit; those wakes are not sent and will be claimed again after the lease",
			zap.Int("alarms", len(advances)), zap.Error(err))
	}
}

// Why a wake's context ended, as context.Cause reports it.
var (
	// errDeliveryTimeout: the wake's DeliveryTimeout passed.
	errDeliveryTimeout = errors.New("delivery timeout")
	// errAbandoned: shutdown's drain timeout passed with the wake still running.
	errAbandoned = errors.New("abandoned at shutdown")
)

// deliverOne sends one wake under ctx and reports its outcome; decided is false when
// shutdown abandoned it (nobody knows whether it arrived: the lease decides).
//
// Every wake that is an attempt is timed, and its outcome carries the receipt for the
// attempt log: the duration, and what the receiver answered when the waker says
// (ports.ResponseWaker), its body cut to AttemptBodyBytes.
func (d *Dispatcher) deliverOne(ctx context.Context, a domain.Alarm) (out domain.Outcome, decided bool) {
	began := time.Now() // the monotonic clock times the wake; the store clock dates it
	defer func() {
		if r := recover(); r != nil {
			d.stats.failed.Add(1)
			d.metrics.Woke(ports.WakeFailed, d.clock.Now().Sub(a.NextFireAt), 0)
			out, decided = domain.DeliveryFailed(fmt.Sprintf("waker panicked: %v", r)), true
			out.Receipt = &domain.Receipt{Duration: time.Since(began)}
		}
	}()
	start := d.clock.Now()
	w := domain.NewWake(a, start)
	ctx, span := d.traceWake(ctx, &w)
	resp, err := ports.WakeFor(ctx, d.waker, w)
	endWake(span, err)
	end := d.clock.Now()
	receipt := d.receipt(resp, time.Since(began))
	var held ports.Deferral
	switch {
	case err == nil:
		d.stats.delivered.Add(1)
		d.metrics.Woke(ports.WakeDelivered, end.Sub(a.NextFireAt), end.Sub(start))
		d.lag.Observe(end.Sub(a.NextFireAt))
		out = domain.Delivered()
		out.Receipt = receipt
		return out, true
	case errors.As(err, &held):
		// Held back before it was sent (its endpoint busy, its breaker open): not an
		// attempt, so no failure, no lag sample; due again after the wait.
		d.stats.deferred.Add(1)
		d.metrics.Deferred(held.DeferReason())
		return domain.Deferred(held.DeferFor(), err.Error()), true
	case errors.Is(context.Cause(ctx), errAbandoned):
		// Shutdown cut the wake short: we do not know whether it arrived, so we record
		// nothing and let the lease decide (at-least-once: fired again).
		d.stats.abandoned.Add(1)
		return domain.Outcome{}, false
	default:
		if errors.Is(err, context.DeadlineExceeded) && errors.Is(context.Cause(ctx), errDeliveryTimeout) {
			// The batch's deadline passed a hair before the waker's own timeout of the
			// same length, and the waker handed back the context's error: say what
			// happened, as the waker would have, not "context deadline exceeded".
			err = fmt.Errorf("timeout after %s: no answer within the delivery timeout", d.cfg.DeliveryTimeout)
		}
		d.stats.failed.Add(1)
		d.metrics.Woke(ports.WakeFailed, end.Sub(a.NextFireAt), end.Sub(start))
		d.lag.Observe(end.Sub(a.NextFireAt))
		out = failedOutcome(err)
		out.Receipt = receipt
		return out, true
	}
}

// receipt is the attempt log's record of a wake that took took, with what the
// receiver answered (the zero Response: nothing known), its body within the limit.
func (d *Dispatcher) receipt(r ports.Response, took time.Duration) *domain.Receipt {
	rc := r.Receipt(took, d.cfg.AttemptBodyBytes)
	return &rc
}

// failedOutcome is the outcome of a failed wake, with what the receiver said about a
// retry when the waker's error carries it (ports.ReceiverVerdict), or that the egress
// policy refused its address (not retried).
func failedOutcome(err error) domain.Outcome {
	o := domain.DeliveryFailed(err.Error())
	var v ports.ReceiverVerdict
	if errors.As(err, &v) {
		o.RetryAfter, o.Gone = v.RetryAfter(), v.Gone()
	}
	var refused *domain.EgressError
	o.Refused = errors.As(err, &refused)
	return o
}

// apply writes outcomes, retrying while the lease still protects them. Giving up is
// safe for at-least-once alarms (the lease expires and they fire again); an
// at-most-once outcome that is never recorded leaves the advanced alarm leased, which
// is logged here with its ids.
func (d *Dispatcher) apply(claim trace.SpanContext, ts []domain.Transition) {
	deadline := time.Now().Add(d.cfg.Lease / 2)
	wait := newRetryDelay(50*time.Millisecond, 2*time.Second)
	for {
		// Each attempt is bounded on its own, so one on a dead connection leaves time
		// for another on a fresh one.
		ctx, cancel := context.WithTimeout(withClaimSpan(claim), min(d.cfg.storeTimeout(), max(time.Until(deadline), time.Second)))
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
	ctx, span := d.traceApply(ctx, len(ts))
	res, err := d.store.Apply(ctx, ts)
	endApply(span, len(res.Stale), err)
	if err != nil {
		return nil, err
	}
	d.stats.applied.Add(int64(res.Applied))
	if len(res.Stale) == 0 {
		d.hintNext(ts, nil)
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
	d.hintNext(ts, stale)
	return stale, nil
}

// hintNext wakes this node's idle loop for the soonest alarm an apply left due within
// two ticks (a series' next occurrence, a retry): the loop's last read of the next due
// time ran while those alarms were leased, so it could not see them, and the wait after
// a lease sweep reads none (two ticks, as creates hint: see Dispatcher.idle).
func (d *Dispatcher) hintNext(ts []domain.Transition, stale map[string]bool) {
	var soonest time.Time
	for i := range ts {
		t := &ts[i]
		if t.KeepLease || t.Status != domain.StatusActive || t.NextFireAt.IsZero() || stale[t.AlarmID] {
			continue
		}
		if soonest.IsZero() || t.NextFireAt.Before(soonest) {
			soonest = t.NextFireAt
		}
	}
	if !soonest.IsZero() && soonest.Sub(d.clock.Now()) < 2*d.cfg.Tick {
		d.hints.Hint(soonest)
	}
}
