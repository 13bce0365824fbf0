package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/domain"
)

// The hung-endpoint mode (--hung-endpoint N, issue 24): owner A's endpoint never
// answers, owner B's answers at once, and both are capped at --endpoint-max-in-flight
// on each node. A has N once alarms for its endpoint, all due at one instant; B has a
// steady trickle for its own, due from --quiet-before ahead of that instant until
// --quiet-after past the hung period's end. The hung period ends once every one of A's
// alarms had an attempt, or --duration after they fell due; the run ends by itself once
// every one of B's alarms was delivered. It reports B's lag while A's endpoint held its
// wakes (hung_report.go); --also-without runs it again without A's alarms, for B's lag
// without them.
//
// The nodes deliver as `chronos serve` does (chronos.New, chronos.NewWebhookWaker: the endpoint
// router with its queues and breakers, serve's defaults), both endpoints on the bench's
// own receiver. The timeline is the fairness mode's (newFairRun), with A's alarms as the
// burst.

// The mode's owners and their endpoints.
const (
	HungOwner    = "tenant-hung"
	HungEndpoint = "hung"
	FastOwner    = "tenant-fast"
	FastEndpoint = "fast"
)

func (c *Config) validateHung() []error {
	var errs []error
	if c.HungEndpoint < 0 {
		errs = append(errs, fmt.Errorf("--hung-endpoint must not be negative, got %d", c.HungEndpoint))
	}
	if c.Rate != 0 || c.FindKnee || c.NoisyOwner != 0 {
		errs = append(errs, errors.New("--hung-endpoint is a mode of its own: not with --rate, --find-knee or --noisy-owner"))
	}
	if c.Waker != "webhook" {
		errs = append(errs, errors.New("--hung-endpoint delivers to endpoints on the bench's receiver: it needs --waker webhook"))
	}
	if c.QuietRate < 1 || c.QuietBefore < 0 || c.QuietAfter < 0 || c.Lead <= 0 || c.Duration <= 0 {
		errs = append(errs, fmt.Errorf("--quiet-rate must be at least 1, --quiet-before and --quiet-after not negative, --lead and --duration positive; got %d, %s, %s, %s and %s",
			c.QuietRate, c.QuietBefore, c.QuietAfter, c.Lead, c.Duration))
	}
	if c.EndpointMaxInFlight < 0 || c.EndpointMaxInFlight > domain.MaxEndpointInFlight {
		errs = append(errs, fmt.Errorf("--endpoint-max-in-flight must be between 0 (no cap) and %d, got %d", domain.MaxEndpointInFlight, c.EndpointMaxInFlight))
	}
	// Below the dispatcher's lease (2m), which a delivery must not outlast.
	if c.DeliveryTimeout < domain.MinEndpointTimeout || c.DeliveryTimeout > time.Minute {
		errs = append(errs, fmt.Errorf("--delivery-timeout must be between %s and 1m, got %s", domain.MinEndpointTimeout, c.DeliveryTimeout))
	}
	if c.Via != "store" {
		errs = append(errs, errors.New("--hung-endpoint creates the fast endpoint's alarms through the store: --via api would make them the bench token's"))
	}
	if c.Mix.AtMostOnceFraction != 0 {
		errs = append(errs, errors.New("--hung-endpoint's alarms are at-least-once: not with --at-most-once"))
	}
	if c.ListClients > 0 {
		errs = append(errs, errors.New("--list-clients pages through the bench owner's alarms, which --hung-endpoint does not make"))
	}
	return errs
}

// hungRun is one hung-endpoint run's plan and progress.
type hungRun struct {
	timeline *fairRun // burstDue: when the hung alarms fall due; trickle: the fast endpoint's
	loaded   int64    // the hung alarms loaded (0: --also-without's second run)
	period   time.Duration
	clock    *app.StoreClock
	recv     *hungReceiver

	end     time.Time // the hung period's end; zero while it lasts
	endedBy string
}

// Why a hung period ended.
const (
	endedAttempted = "every hung alarm attempted"
	endedDuration  = "--duration"
)

// newHungRun plans a run whose load starts at now (the store's clock).
func newHungRun(cfg Config, now time.Time, clock *app.StoreClock) *hungRun {
	loaded := int64(cfg.HungEndpoint)
	if cfg.hungWithout {
		loaded = 0
	}
	due := now.Add(loadAllowance(int(loaded)) + cfg.Lead + cfg.QuietBefore)
	return &hungRun{
		timeline: &fairRun{burstDue: due, trickle: &quietTrickle{
			owners: []string{FastOwner}, endpoint: FastEndpoint, rate: int64(cfg.QuietRate), first: due.Add(-cfg.QuietBefore),
			lead: cfg.Lead, payload: cfg.Mix.payload(),
		}},
		loaded: loaded, period: cfg.Duration, clock: clock, recv: newHungReceiver(loaded, cfg.DeliveryTimeout),
	}
}

// markHung makes the loaded alarms the hung endpoint's.
func markHung(as []domain.Alarm) {
	for i := range as {
		as[i].Endpoint = HungEndpoint
	}
}

// createEndpoints registers both endpoints on the receiver at base (its URL without a
// path), through the admin's create path, before the nodes start.
func (r *runner) createEndpoints(ctx context.Context, base, secret string) error {
	store, err := r.w.Open(ctx, r.db.url, false)
	if err != nil {
		return err
	}
	defer store.Close()
	clock := app.NewStoreClock()
	if err := clock.Sync(ctx, store); err != nil {
		return err
	}
	eps := admin.NewEndpoints(store, clock, nil).WithEgress(domain.NewEgressPolicy(receiverRanges))
	for _, e := range []struct{ owner, name, path string }{
		{HungOwner, HungEndpoint, "/hung"},
		{FastOwner, FastEndpoint, "/wake"},
	} {
		_, err := eps.Create(ctx, domain.Endpoint{Owner: e.owner, Name: e.name, URL: base + e.path, Secrets: []string{secret},
			Timeout: r.cfg.DeliveryTimeout, MaxInFlight: r.cfg.EndpointMaxInFlight}, "bench")
		if err != nil {
			return fmt.Errorf("bench: creating endpoint %s/%s: %w", e.owner, e.name, err)
		}
	}
	return nil
}

// watchHung ends the hung period once every hung alarm had an attempt, or when it has
// lasted its longest, and the fast endpoint's trickle --quiet-after later.
func (r *runner) watchHung() {
	h := r.hung
	if h == nil || !h.end.IsZero() {
		return
	}
	switch c := h.recv.counts(); {
	case h.loaded > 0 && !c.AllAttempted.IsZero():
		h.end, h.endedBy = c.AllAttempted, endedAttempted
	case !h.clock.Now().Before(h.timeline.burstDue.Add(h.period)):
		h.end, h.endedBy = h.timeline.burstDue.Add(h.period), endedDuration
	default:
		return
	}
	h.timeline.trickle.stopAt(h.end.Add(r.cfg.QuietAfter))
}

// hungDone says whether the run is over: the trickle made its last alarm and every one
// was delivered (the hung ones never are).
func (r *runner) hungDone(creator *steadyCreator) bool {
	return creator.finished() && r.rec.owners.quietCount() >= creator.created.Load()
}
