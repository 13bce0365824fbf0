package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/storeurl"
	"github.com/chronoshq/chronos/ports"
)

// Run runs the benchmark cfg describes: a table for people and, as the last line, one
// JSON object for scripts on stdout; progress on stderr. It refuses a bad cfg with
// every reason at once, before any database is made.
func Run(ctx context.Context, cfg Config, w Wiring, stdout, stderr io.Writer) error {
	if err := cfg.validate(); err != nil {
		return fmt.Errorf("bench:\n%w", err)
	}
	if cfg.Punctuality {
		return runPunctuality(ctx, cfg, stdout, stderr)
	}
	if cfg.FindKnee {
		return findKnee(ctx, cfg, w, stdout, stderr)
	}
	if cfg.AlsoUnfair {
		return fairnessPair(ctx, cfg, w, stdout, stderr)
	}
	if cfg.AlsoWithout {
		return hungPair(ctx, cfg, w, stdout, stderr)
	}
	res, err := runOnce(ctx, cfg, w, stderr)
	if err != nil {
		return err
	}
	res.print(stdout)
	return nil
}

// runOnce makes the run's database, runs, and drops it (unless --keep).
func runOnce(ctx context.Context, cfg Config, w Wiring, stderr io.Writer) (*result, error) {
	db, err := newDatabase(ctx, cfg.Store)
	if err != nil {
		return nil, err
	}
	defer db.close()
	defer func() {
		if cfg.Keep {
			fmt.Fprintf(stderr, "bench: kept %s (%s)\n", db.name, storeurl.Redact(db.url))
			return
		}
		dropCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := db.drop(dropCtx); err != nil {
			fmt.Fprintf(stderr, "bench: dropping %s failed: %v\n", db.name, err)
		}
	}()
	r := &runner{cfg: cfg, db: db, w: w, stderr: stderr}
	return r.run(ctx)
}

// runner is one run: load, dispatch, measure.
type runner struct {
	cfg    Config
	db     *database
	w      Wiring
	stderr io.Writer

	rec      *Recorder // the receiver's, with the webhook waker
	receiver *Receiver
	nodes    []node
	nodesDir string   // worker processes' key files
	fair     *fairRun // the fairness mode's plan, made by the load
	hung     *hungRun // the hung-endpoint mode's, made by the load
}

func (r *runner) run(ctx context.Context) (*result, error) {
	res := &result{Store: r.db.dialect, Nodes: r.cfg.Nodes, Waker: r.cfg.Waker, Mode: r.cfg.mode(),
		Batch: r.cfg.Batch, Concurrency: r.cfg.Concurrency, CommitsSource: r.db.commitsSource, UnfairClaims: r.cfg.UnfairClaims}
	store, err := r.w.Open(ctx, r.db.url, true)
	if err != nil {
		return nil, err
	}
	clock := app.NewStoreClock()
	if err := clock.Sync(ctx, store); err != nil {
		_ = store.Close()
		return nil, err
	}
	if r.cfg.Rate == 0 || r.cfg.NotDue > 0 {
		if err := r.load(ctx, store, clock, res); err != nil {
			_ = store.Close()
			return nil, err
		}
	}
	// The loading connections go before the count starts: PostgreSQL publishes a
	// backend's counts when it ends (or within seconds when idle), and the load's must
	// not land in the run's.
	_ = store.Close()

	res.SizesStart = r.sizes(ctx)

	wakeURL, secret, stopReceiver, err := r.startReceiver()
	if err != nil {
		return nil, err
	}
	defer stopReceiver()
	if r.hung != nil {
		if err := r.createEndpoints(ctx, strings.TrimSuffix(wakeURL, "/wake"), secret); err != nil {
			return nil, err
		}
	}
	if err := r.startNodes(ctx, wakeURL, secret); err != nil {
		return nil, err
	}
	var creator *steadyCreator
	var plan creationPlan
	switch {
	case r.cfg.Rate > 0:
		plan = steadyPlan{r.cfg}
	case r.fair != nil:
		plan = r.fair.trickle
	case r.hung != nil:
		plan = r.hung.timeline.trickle
	}
	if plan != nil {
		var shared ports.Store
		if dn, ok := r.nodes[0].(*dispatcherNode); ok {
			shared = dn.store
		}
		if creator, err = newSteadyCreator(ctx, r.w.Open, r.db.url, shared, r.cfg, plan); err != nil {
			_, _ = r.stopNodes()
			return nil, err
		}
	}
	var before int64
	if r.db.commits != nil {
		if before, err = r.db.settledCommits(ctx); err != nil {
			_, _ = r.stopNodes()
			return nil, fmt.Errorf("bench: reading commits: %w", err)
		}
	}
	var stopProfile func()
	if r.cfg.CPUProfile != "" && r.cfg.inProcess() {
		if stopProfile, err = startCPUProfile(r.cfg.CPUProfile); err != nil {
			_, _ = r.stopNodes()
			return nil, err
		}
	}
	if r.fair != nil {
		r.fair.waitForStart(ctx, clock, r.stderr)
	}
	if r.hung != nil {
		r.hung.timeline.waitForStart(ctx, clock, r.stderr)
	}
	var costFrom costReading
	costFrom.readServer(ctx, r.db.meter)
	costFrom.readNodeCPU()
	start := time.Now()
	var lagFrom time.Time
	if r.cfg.mode() == "burn-down" {
		lagFrom = start // the backlog's wait counts from here
		if r.rec != nil {
			r.rec.CountLagFrom(start)
		}
	}
	for _, n := range r.nodes {
		if err := n.start(lagFrom); err != nil {
			_, _ = r.stopNodes()
			return nil, fmt.Errorf("starting a node: %w", err)
		}
	}
	var loaded int64 // the alarms due in the run that the load made
	switch r.cfg.mode() {
	case "burn-down":
		loaded = int64(r.cfg.Alarms)
	case "fairness":
		loaded = int64(r.cfg.NoisyOwner)
	case "hung endpoint":
		loaded = r.hung.loaded
	}
	if creator != nil {
		creator.started.Store(true)
		go creator.run()
	}
	end, finished := r.watch(ctx, start, loaded, creator)
	if r.hung != nil {
		r.hung.recv.releaseAll() // the nodes drain at once
	}
	if stopProfile != nil {
		stopProfile()
	}
	if creator != nil {
		creator.stop()
		res.Alarms = loaded + creator.created.Load()
	}
	var costTo costReading
	costTo.readServer(ctx, r.db.meter) // before the nodes stop: their backends end with them
	reports, stopErr := r.stopNodes()
	if stopErr != nil {
		return nil, stopErr
	}
	costTo.readNodeCPU() // after: a node process's CPU is counted once it is reaped
	if !finished {
		return nil, fmt.Errorf("bench: not finished within --timeout %s (or interrupted): %d of %d outcomes applied",
			r.cfg.Timeout, r.applied(), r.expectedApplied(res.Alarms))
	}
	elapsed := end.Sub(start)
	if r.cfg.mode() == "steady" {
		elapsed = r.cfg.Duration
		// The last alarms fall due --lead after the creator's last tick; what was
		// still unapplied then is the backlog the run ended with.
		res.DrainMs = max(float64(end.Sub(start.Add(r.cfg.Duration+r.cfg.Lead)).Microseconds())/1000, 0)
	}
	res.fill(reports, r.rec, r.receiver, elapsed)
	res.Costs = costsBetween(costFrom, costTo, r.db.meter, res.Alarms)
	if r.fair != nil {
		f := measureFairness(r.ownerLog(reports), r.fair.burstDue)
		f.BurstOwner, f.QuietOwners, f.QuietRate = BurstOwner, r.cfg.QuietOwners, r.cfg.QuietRate
		var held endpointFigures
		for _, rep := range reports {
			held.merge(rep.Endpoints)
		}
		f.HeldBack = held.HeldBack
		res.Fairness = &f
	}
	if r.hung != nil {
		res.HungEndpoint = r.hungFigures(reports, creator.created.Load())
	}
	res.SizesEnd = r.sizes(ctx)
	if r.db.commits != nil {
		after, err := r.db.settledCommits(ctx)
		if err != nil {
			return nil, fmt.Errorf("bench: reading commits: %w", err)
		}
		res.Commits = after - before
		if creator != nil {
			res.Commits -= creator.txns.Load() // the creator's own, not the dispatchers'
		}
	} else {
		res.Commits = res.Stats.Claims + res.Stats.ClaimErrors + res.Stats.ApplyCalls
	}
	switch {
	case res.Commits < 0:
		// The server restarted during the run and its counters began again.
		res.CommitsPerFire = -1
		res.CommitsSource += "; UNKNOWN: the counter went backwards (server restarted during the run)"
	case res.Alarms > 0:
		res.CommitsPerFire = float64(res.Commits) / float64(res.Alarms)
	}
	// Last, so its reads count in none of the run's figures.
	if r.cfg.ListClients > 0 {
		if res.List, err = r.listBench(ctx); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// createBatches creates as with CreateBatch, a few hundred a call, on a store without
// CreateMany; the first item refused is the error.
func createBatches(ctx context.Context, store ports.AlarmStore, as []domain.Alarm) error {
	for batch := range slices.Chunk(as, 500) {
		results, err := store.CreateBatch(ctx, batch)
		if err != nil {
			return err
		}
		for _, r := range results {
			if r.Err != nil {
				return r.Err
			}
		}
	}
	return nil
}

// load bulk-loads the backlog (burn-down: every alarm due within the second before
// now; fairness: the burst, due at the instant newFairRun plans) and the --not-due
// alarms, due a day later.
func (r *runner) load(ctx context.Context, store ports.Store, clock *app.StoreClock, res *result) error {
	now := clock.Now()
	due, owner, mix, from, to := r.cfg.Alarms, Owner, r.cfg.Mix, now.Add(-time.Second), now
	switch r.cfg.mode() {
	case "steady":
		due = 0 // the creator makes them as the run goes
	case "fairness":
		r.fair = newFairRun(r.cfg, now)
		due, owner, from, to = r.cfg.NoisyOwner, BurstOwner, r.fair.burstDue, r.fair.burstDue
		mix.CronFraction = 0
	case "hung endpoint":
		r.hung = newHungRun(r.cfg, now, clock)
		due, owner, from, to = int(r.hung.loaded), HungOwner, r.hung.timeline.burstDue, r.hung.timeline.burstDue
		mix.CronFraction = 0
	}
	as, err := buildFor(owner, due, mix, now, from, to)
	if err != nil {
		return err
	}
	if r.hung != nil {
		markHung(as)
	}
	if r.cfg.NotDue > 0 {
		later, err := Build(r.cfg.NotDue, r.cfg.Mix, now, now.Add(24*time.Hour), now.Add(25*time.Hour))
		if err != nil {
			return err
		}
		as = append(as, later...)
	}
	bc, ok := store.(ports.BulkCreator)
	start := time.Now()
	const chunk = 20_000
	for i := 0; i < len(as); i += chunk {
		part := as[i:min(i+chunk, len(as))]
		if ok {
			err = bc.CreateMany(ctx, part)
		} else {
			err = createBatches(ctx, store, part)
		}
		if err != nil {
			return fmt.Errorf("bench: loading alarms: %w", err)
		}
	}
	res.Alarms = int64(due)
	res.NotDue = int64(r.cfg.NotDue)
	res.LoadPerSec = float64(len(as)) / time.Since(start).Seconds()
	if r.db.analyze != nil {
		// A table that just grew from nothing has no statistics yet, and PostgreSQL
		// would plan the first claims as if it were empty (a sort of every due row
		// instead of a walk of the due index: 66 ms instead of 12 for 1,000 rows).
		if err := r.db.analyze(ctx); err != nil {
			return fmt.Errorf("bench: analyzing after the load: %w", err)
		}
	}
	fmt.Fprintf(r.stderr, "bench: loaded %d alarms into %s (%.0f/s)\n", len(as), r.db.name, res.LoadPerSec)
	return nil
}

// sizes reads the tables' sizes; a failure to is reported, not fatal: the run's other
// figures stand without them.
func (r *runner) sizes(ctx context.Context) []tableSize {
	if r.db.sizes == nil {
		return nil
	}
	s, err := r.db.sizes(ctx)
	if err != nil {
		fmt.Fprintf(r.stderr, "bench: reading table sizes: %v\n", err)
	}
	return s
}

// expectedApplied is how many transitions the dispatchers apply for n alarms: one
// outcome each, and one advance more for each at-most-once alarm.
func (r *runner) expectedApplied(n int64) int64 {
	amo := int64(float64(n) * r.cfg.Mix.AtMostOnceFraction)
	return n + amo
}

// startReceiver runs the local webhook receiver (webhook waker only).
func (r *runner) startReceiver() (url, secret string, stop func(), err error) {
	if r.cfg.Waker != "webhook" {
		return "", "", func() {}, nil
	}
	secret = randomHex(16)
	r.rec = NewRecorder()
	if r.cfg.NoisyOwner > 0 {
		r.rec.TrackOwners(BurstOwner)
	}
	r.receiver = NewReceiver(r.rec, func(header string, body []byte) error {
		return webhook.Verify([]byte(secret), header, body, time.Now(), time.Minute)
	})
	var handler http.Handler = r.receiver
	if r.hung != nil {
		r.rec.TrackOwners(HungOwner) // the hung endpoint's wakes apart from the fast one's
		mux := http.NewServeMux()
		mux.Handle("/hung", r.hung.recv)
		mux.Handle("/", r.receiver)
		handler = mux
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", nil, fmt.Errorf("bench: receiver: %w", err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	stop = func() {
		if r.hung != nil {
			r.hung.recv.releaseAll()
		}
		_ = srv.Close()
	}
	return "http://" + ln.Addr().String() + "/wake", secret, stop, nil
}

func (r *runner) startNodes(ctx context.Context, wakeURL, secret string) error {
	cfg := nodeConfig{Store: r.db.url, Waker: r.cfg.Waker, WakeURL: wakeURL, WakeSecret: secret,
		Batch: r.cfg.Batch, Concurrency: r.cfg.Concurrency, Tick: r.cfg.Tick, Retention: r.cfg.Retention, EventsCap: r.cfg.EventsCap,
		UnfairClaims: r.cfg.UnfairClaims, WakeURLMaxInFlight: r.cfg.WakeURLMaxInFlight, OTelEndpoint: r.cfg.OTelEndpoint}
	if r.cfg.NoisyOwner > 0 {
		cfg.BurstOwner = BurstOwner
	}
	if r.hung != nil {
		cfg.DeliveryTimeout = r.cfg.DeliveryTimeout
	}
	dir, err := os.MkdirTemp("", "chronos-bench-nodes-")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	r.nodesDir = dir
	for i := range r.cfg.Nodes {
		var n node
		if r.cfg.inProcess() {
			n, err = newDispatcherNode(ctx, cfg, r.w)
		} else {
			n, err = startProcessNode(ctx, i, cfg, dir, r.cfg.CPUProfile)
		}
		if err != nil {
			_, _ = r.stopNodes()
			return err
		}
		r.nodes = append(r.nodes, n)
	}
	return nil
}

func (r *runner) stopNodes() ([]nodeReport, error) {
	var reports []nodeReport
	var errs []error
	for _, n := range r.nodes {
		rep, err := n.stop()
		reports = append(reports, rep)
		errs = append(errs, err)
	}
	r.nodes = nil
	if r.nodesDir != "" {
		errs = append(errs, os.RemoveAll(r.nodesDir))
	}
	return reports, errors.Join(errs...)
}

func (r *runner) applied() int64 {
	var total int64
	for _, n := range r.nodes {
		total += n.progress().Applied
	}
	return total
}

// watch prints a progress line every second and returns when the loaded alarms due in
// the run, and with a creator every alarm it created once it is done, have each been
// sent (delivered, or failed) and as many outcomes are applied as they need, with the
// time the last outcome was applied. Both, since a wake held back by its node (an owner
// over its in-flight cap) is an outcome applied too, and is sent later. In the fairness
// mode it ends the trickle once the burst has drained (watchBurst).
func (r *runner) watch(ctx context.Context, start time.Time, loaded int64, creator *steadyCreator) (time.Time, bool) {
	deadline := time.NewTimer(r.cfg.Timeout)
	defer deadline.Stop()
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	nextLine := start.Add(time.Second)
	nextMinute := time.Minute
	var prevApplied int64
	for {
		select {
		case <-ctx.Done():
			return time.Time{}, false
		case <-deadline.C:
			return time.Time{}, false
		case <-poll.C:
		}
		var applied, delivered, failed int64
		var last time.Time
		for _, n := range r.nodes {
			p := n.progress()
			applied += p.Applied
			delivered += p.Delivered
			failed += p.Failed
			if p.LastApplied.After(last) {
				last = p.LastApplied
			}
		}
		alarms := loaded
		if creator != nil {
			alarms += creator.created.Load()
		}
		want := r.expectedApplied(alarms)
		r.watchBurst()
		r.watchHung()
		if now := time.Now(); now.After(nextLine) {
			line := fmt.Sprintf("bench: %5.1fs  delivered %d  applied %d/%d  %d/s", now.Sub(start).Seconds(), delivered, applied, want, applied-prevApplied)
			if r.rec != nil {
				line += fmt.Sprintf("  receiver %d", r.rec.Delivered())
			}
			if r.fair != nil {
				burst, _ := r.burstProgress()
				line += fmt.Sprintf("  burst %d/%d", burst, r.cfg.NoisyOwner)
			}
			if r.hung != nil {
				c := r.hung.recv.counts()
				line += fmt.Sprintf("  hung: %d attempts, %d/%d alarms", c.Attempts, c.Attempted, r.hung.loaded)
			}
			fmt.Fprintln(r.stderr, line)
			prevApplied = applied
			nextLine = nextLine.Add(time.Second)
			if elapsed := now.Sub(start); elapsed >= nextMinute {
				// Growth over a long run: sizes and this process's memory, once a
				// minute (a node in its own process reports its peak at the end).
				fmt.Fprintf(r.stderr, "bench: %5.0fs  tables: %s  bench process RSS %s\n",
					elapsed.Seconds(), formatSizes(r.sizes(ctx)), mib(currentRSS()))
				nextMinute += time.Minute
			}
		}
		done := applied >= want && delivered+failed >= alarms
		if creator != nil {
			done = done && creator.finished()
		}
		if r.hung != nil {
			// The hung alarms are never delivered: the run is over once the fast
			// endpoint's all were.
			done, last = r.hungDone(creator), time.Now()
		}
		if done {
			return last, true
		}
	}
}
