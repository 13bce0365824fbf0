package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
)

// The fairness mode (--noisy-owner N, issue 24): one owner's burst of N once alarms,
// all due at one instant, beside a steady trickle of other owners' alarms due before,
// during and after it. The run ends by itself: the trickle stops --quiet-after the
// burst's last wake, and the run once every alarm made is sent and applied. It reports
// the lag of the quiet owners' wakes that waited while the burst drained, and the
// burst's drain rate (fairness_report.go).
//
// The timeline, on the store's clock: the load starts at now; the burst falls due at
// now + loadAllowance + --lead + --quiet-before; dispatching starts --lead before the
// trickle's first alarm falls due, --quiet-before ahead of the burst.

// BurstOwner owns the fairness mode's burst.
const BurstOwner = "tenant-burst"

// QuietOwners names the fairness mode's n quiet owners: tenant-q01, tenant-q02, ....
// Their lanes are whatever the store hashes these names to, as any tenant's would be.
func QuietOwners(n int) []string {
	owners := make([]string, n)
	for i := range owners {
		owners[i] = fmt.Sprintf("tenant-q%02d", i+1)
	}
	return owners
}

func (c *Config) validateFairness() []error {
	var errs []error
	if c.NoisyOwner < 0 {
		errs = append(errs, fmt.Errorf("--noisy-owner must not be negative, got %d", c.NoisyOwner))
	}
	if c.Rate != 0 || c.FindKnee {
		errs = append(errs, errors.New("--noisy-owner is a mode of its own: not with --rate or --find-knee"))
	}
	if c.QuietOwners < 1 || c.QuietRate < 1 {
		errs = append(errs, fmt.Errorf("--quiet-owners and --quiet-rate must be at least 1, got %d and %d", c.QuietOwners, c.QuietRate))
	}
	if c.QuietBefore < 0 || c.QuietAfter < 0 || c.Lead <= 0 {
		errs = append(errs, fmt.Errorf("--quiet-before and --quiet-after must not be negative and --lead must be positive, got %s, %s and %s",
			c.QuietBefore, c.QuietAfter, c.Lead))
	}
	if c.Via != "store" {
		errs = append(errs, errors.New("--noisy-owner creates the quiet owners' alarms through the store: --via api would make them all one token's"))
	}
	if c.Mix.AtMostOnceFraction != 0 {
		errs = append(errs, errors.New("--noisy-owner's alarms are at-least-once: not with --at-most-once"))
	}
	if c.ListClients > 0 {
		errs = append(errs, errors.New("--list-clients pages through the bench owner's alarms, which --noisy-owner does not make"))
	}
	if c.AlsoUnfair && c.UnfairClaims {
		errs = append(errs, errors.New("--also-unfair runs with fair claims, then with --unfair-claims: not with --unfair-claims"))
	}
	return errs
}

// fairRun is one fairness run's plan and progress.
type fairRun struct {
	burstDue time.Time // the store's clock
	trickle  *quietTrickle
	drained  bool // every burst wake delivered; the trickle's end is set
}

// loadAllowance is the time planned for the load and the nodes' start: a second, and
// 100µs an alarm (MariaDB's bulk load, the slowest, takes about that on a busy
// machine). When it is not enough the trickle starts later than planned, and the run
// says so (waitForStart).
func loadAllowance(n int) time.Duration { return time.Second + time.Duration(n)*100*time.Microsecond }

// newFairRun plans a run whose load starts at now (the store's clock).
func newFairRun(cfg Config, now time.Time) *fairRun {
	due := now.Add(loadAllowance(cfg.NoisyOwner) + cfg.Lead + cfg.QuietBefore)
	return &fairRun{burstDue: due, trickle: &quietTrickle{
		owners: QuietOwners(cfg.QuietOwners), rate: int64(cfg.QuietRate), first: due.Add(-cfg.QuietBefore),
		lead: cfg.Lead, payload: cfg.Mix.payload(),
	}}
}

// waitForStart waits until the trickle's first alarm is --lead away, so that it falls
// due --quiet-before ahead of the burst. A load that overran loadAllowance leaves less
// time: the trickle then starts --lead from now, and the run warns.
func (f *fairRun) waitForStart(ctx context.Context, clock *app.StoreClock, stderr io.Writer) {
	now := clock.Now()
	if wait := f.trickle.first.Add(-f.trickle.lead).Sub(now); wait > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		return
	}
	planned := f.burstDue.Sub(f.trickle.first)
	f.trickle.first = now.Add(f.trickle.lead)
	fmt.Fprintf(stderr, "bench: warning: the load took longer than planned: the trickle's alarms fall due %s before the loaded ones, not %s\n",
		max(f.burstDue.Sub(f.trickle.first), 0).Round(time.Millisecond), planned)
}

// quietTrickle is the creation plan of the quiet owners' alarms: rate a second in all,
// due at even intervals from first, the owners in turn, each made lead before it falls
// due, until stopAt's time; for endpoint, when not "".
type quietTrickle struct {
	owners   []string
	endpoint string
	rate     int64
	first    time.Time // set before the creator starts
	lead     time.Duration
	payload  json.RawMessage
	until    atomic.Int64 // unix ns: the last due time; 0 until the burst has drained
}

// dueAt is when the k-th alarm of the trickle falls due.
func (q *quietTrickle) dueAt(k int64) time.Time {
	return q.first.Add(time.Duration(k * int64(time.Second) / q.rate))
}

// stopAt ends the trickle with its last alarm due at t.
func (q *quietTrickle) stopAt(t time.Time) { q.until.Store(t.UnixNano()) }

func (q *quietTrickle) next(now time.Time, _ time.Duration, created int64) ([]domain.Spec, bool, error) {
	horizon := now.Add(q.lead)
	until := q.until.Load()
	done := until != 0 && horizon.UnixNano() >= until
	if done {
		horizon = time.Unix(0, until)
	}
	var specs []domain.Spec
	for k := created; !q.dueAt(k).After(horizon); k++ {
		due := q.dueAt(k)
		specs = append(specs, domain.Spec{Owner: q.owners[k%int64(len(q.owners))], Label: "bench", Payload: q.payload,
			MaxFailures: 5, Kind: domain.KindOnce, FireAt: &due, Endpoint: q.endpoint})
	}
	return specs, done, nil
}

// burstProgress is how many burst wakes were delivered so far, by the receiver or by
// the nodes, and when the latest was.
func (r *runner) burstProgress() (int64, time.Time) {
	if r.rec != nil {
		return r.rec.owners.burstProgress()
	}
	var n int64
	var last time.Time
	for _, nd := range r.nodes {
		p := nd.progress()
		n += p.Burst
		if p.BurstLast.After(last) {
			last = p.BurstLast
		}
	}
	return n, last
}

// watchBurst ends the trickle --quiet-after the burst's last wake, once every burst
// wake has been delivered.
func (r *runner) watchBurst() {
	if r.fair == nil || r.fair.drained {
		return
	}
	if n, last := r.burstProgress(); n >= int64(r.cfg.NoisyOwner) {
		r.fair.drained = true
		r.fair.trickle.stopAt(last.Add(r.cfg.QuietAfter))
	}
}

// ownerLog collects the fairness mode's log: the receiver's, or the nodes' merged.
func (r *runner) ownerLog(reports []nodeReport) OwnerLogData {
	if r.rec != nil {
		return r.rec.OwnerLog()
	}
	var d OwnerLogData
	for _, rep := range reports {
		if rep.Owners != nil {
			d.merge(*rep.Owners)
		}
	}
	return d
}
