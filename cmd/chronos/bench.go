package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/internal/bench"
	"github.com/chronoshq/chronos/ports"
)

// benchConfig is every setting of `chronos bench`. The bench reads no CHRONOS_*
// environment: a figure must be reproducible from the command line quoted beside it.
type benchConfig struct {
	Store        string
	Nodes        int
	InProcess    bool
	Process      bool
	Waker        string
	Alarms       int
	NotDue       int
	Mix          bench.Mix
	Rate         int
	Duration     time.Duration
	Lead         time.Duration
	Batch        int
	Concurrency  int
	Tick         time.Duration
	Timeout      time.Duration
	Keep         bool
	CPUProfile   string
	FindKnee     bool
	KneeP99      time.Duration
	Retention    time.Duration
	EventsCap    int
	Via          string
	ListClients  int
	ListDuration time.Duration
}

func (c *benchConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.Store, "store", "sqlite", "server to run on: sqlite, postgres, mysql (the local development databases) or a URL; a new database (or file) is made for the run")
	fs.IntVar(&c.Nodes, "nodes", 1, "dispatchers; more than one run as separate processes")
	fs.BoolVar(&c.InProcess, "in-process", false, "run every node in this process (each with its own store connections)")
	fs.BoolVar(&c.Process, "process", false, "run even a single node as a process of its own, so its peak RSS is its own (with --waker webhook the occurrence keys are kept by the bench, not the node)")
	fs.StringVar(&c.Waker, "waker", "noop", "noop (acknowledge at once, in the node) or webhook (signed POSTs to a receiver the bench runs)")
	fs.IntVar(&c.Alarms, "alarms", 200_000, "burn-down: alarms due at the start")
	fs.IntVar(&c.NotDue, "not-due", 0, "also load this many alarms due a day later, which no claim may pay for")
	fs.Float64Var(&c.Mix.CronFraction, "cron", 0.1, "fraction of cron series among the alarms")
	fs.Float64Var(&c.Mix.AtMostOnceFraction, "at-most-once", 0, "fraction of at-most-once alarms")
	fs.IntVar(&c.Mix.PayloadBytes, "payload", 100, "payload size in bytes")
	fs.IntVar(&c.Rate, "rate", 0, "steady mode: once alarms created per second (--cron applies to burn-down only), each due --lead after its creation (0: burn-down)")
	fs.DurationVar(&c.Duration, "duration", 30*time.Second, "steady mode: how long alarms are created")
	fs.DurationVar(&c.Lead, "lead", 2*time.Second, "steady mode: how far ahead of its creation an alarm falls due")
	fs.IntVar(&c.Batch, "batch", 1000, "dispatcher --batch")
	fs.IntVar(&c.Concurrency, "concurrency", 4000, "dispatcher --concurrency")
	fs.DurationVar(&c.Tick, "tick", time.Second, "dispatcher --tick")
	fs.DurationVar(&c.Timeout, "timeout", 10*time.Minute, "give up when the run has not finished by then")
	fs.BoolVar(&c.Keep, "keep", false, "keep the bench database (or file) afterwards")
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "write a CPU profile of the run (worker processes: FILE.nodeN)")
	fs.IntVar(&c.ListClients, "list-clients", 0, "after the run, this many clients page through the bench owner's alarms with store.List (first page, deep page, two status filters); 0: no list benchmark")
	fs.DurationVar(&c.ListDuration, "list-duration", 10*time.Second, "--list-clients: how long each variant runs")
	fs.StringVar(&c.Via, "via", "store", "steady mode: how alarms are created: store (app.Alarms.CreateBatch, the API's own path, one transaction per 10 ms) or api (POST /v1/alarms/batch to an HTTP API the bench runs next to the node)")
	fs.DurationVar(&c.Retention, "retention", 0, "run retention in the nodes as serve does, with this --retention (0: off; at least 1m)")
	fs.IntVar(&c.EventsCap, "events-per-alarm", 1000, "serve's --events-per-alarm, with --retention")
	fs.BoolVar(&c.FindKnee, "find-knee", false, "steady runs at rising --rate (from --rate, default 5000) to find the highest with lag p99 under --knee-p99 and no backlog left")
	fs.DurationVar(&c.KneeP99, "knee-p99", 50*time.Millisecond, "--find-knee: the lag p99 a rate must stay under")
}

func (c *benchConfig) validate() error {
	var errs []error
	if c.Nodes < 1 {
		errs = append(errs, fmt.Errorf("--nodes must be at least 1, got %d", c.Nodes))
	}
	if c.Waker != "noop" && c.Waker != "webhook" {
		errs = append(errs, fmt.Errorf("--waker must be noop or webhook, got %q", c.Waker))
	}
	if c.Rate == 0 && c.Alarms < 1 {
		errs = append(errs, fmt.Errorf("--alarms must be at least 1, got %d", c.Alarms))
	}
	if c.Via != "store" && c.Via != "api" {
		errs = append(errs, fmt.Errorf("--via must be store or api, got %q", c.Via))
	}
	if c.Process && c.InProcess {
		errs = append(errs, errors.New("--process and --in-process contradict each other"))
	}
	if c.FindKnee && c.Rate == 0 {
		c.Rate = 5000
	}
	if c.FindKnee && c.KneeP99 <= 0 {
		errs = append(errs, fmt.Errorf("--knee-p99 must be positive, got %s", c.KneeP99))
	}
	if c.Rate < 0 || (c.Rate > 0 && c.Duration <= 0) {
		errs = append(errs, errors.New("--rate must be positive and --duration positive in steady mode"))
	}
	if err := c.Mix.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// inProcess says whether the nodes run in the bench's own process.
func (c *benchConfig) inProcess() bool {
	return c.InProcess || (c.Nodes == 1 && !c.Process)
}

func (c *benchConfig) mode() string {
	if c.Rate > 0 {
		return "steady"
	}
	return "burn-down"
}

func benchCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg benchConfig
	fs := newFlagSetNoEnv("bench", stderr)
	cfg.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := cfg.validate(); err != nil {
		return fmt.Errorf("bench:\n%w", err)
	}
	log, err := newLogger("console", "warn", stderr)
	if err != nil {
		return err
	}
	if cfg.FindKnee {
		return findKnee(ctx, cfg, log, stdout, stderr)
	}
	res, err := benchOnce(ctx, cfg, log, stderr)
	if err != nil {
		return err
	}
	res.print(stdout)
	return nil
}

// benchOnce makes the run's database, runs, and drops it (unless --keep).
func benchOnce(ctx context.Context, cfg benchConfig, log *zap.Logger, stderr io.Writer) (*benchResult, error) {
	db, err := newBenchDB(ctx, cfg.Store)
	if err != nil {
		return nil, err
	}
	defer db.close()
	defer func() {
		if cfg.Keep {
			fmt.Fprintf(stderr, "bench: kept %s (%s)\n", db.name, redact(db.url))
			return
		}
		dropCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := db.drop(dropCtx); err != nil {
			fmt.Fprintf(stderr, "bench: dropping %s failed: %v\n", db.name, err)
		}
	}()
	r := &benchRun{cfg: cfg, db: db, log: log, stderr: stderr}
	return r.run(ctx)
}

// benchRun is one run: load, dispatch, measure.
type benchRun struct {
	cfg    benchConfig
	db     *benchDB
	log    *zap.Logger
	stderr io.Writer

	rec      *bench.Recorder // the receiver's, with the webhook waker
	receiver *bench.Receiver
	nodes    []benchNode
	nodesDir string // worker processes' key files
}

func (r *benchRun) run(ctx context.Context) (*benchResult, error) {
	res := &benchResult{Store: r.db.dialect, Nodes: r.cfg.Nodes, Waker: r.cfg.Waker, Mode: r.cfg.mode(),
		Batch: r.cfg.Batch, Concurrency: r.cfg.Concurrency, CommitsSource: r.db.commitsSource}
	store, err := openStore(ctx, r.db.url, true)
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
	if err := r.startNodes(ctx, wakeURL, secret); err != nil {
		return nil, err
	}
	var creator *benchCreator
	if r.cfg.Rate > 0 {
		var shared ports.Store
		if dn, ok := r.nodes[0].(*dispatcherNode); ok {
			shared = dn.store
		}
		if creator, err = newBenchCreator(ctx, r.db.url, shared, r.cfg); err != nil {
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
	start := time.Now()
	var lagFrom time.Time
	if r.cfg.Rate == 0 {
		lagFrom = start // the backlog's wait counts from here
		if r.rec != nil {
			r.rec.CountLagFrom(start)
		}
	}
	for _, n := range r.nodes {
		n.start(lagFrom)
	}
	want := r.expectedApplied(int64(r.cfg.Alarms))
	if creator != nil {
		creator.started.Store(true)
		go creator.run()
	}
	end, finished := r.watch(ctx, start, want, creator)
	if stopProfile != nil {
		stopProfile()
	}
	if creator != nil {
		creator.stop()
		res.Alarms = creator.created.Load()
	}
	reports, stopErr := r.stopNodes()
	if stopErr != nil {
		return nil, stopErr
	}
	if !finished {
		return nil, fmt.Errorf("bench: not finished within --timeout %s (or interrupted): %d of %d outcomes applied",
			r.cfg.Timeout, r.applied(), want)
	}
	elapsed := end.Sub(start)
	if creator != nil {
		elapsed = r.cfg.Duration
		// The last alarms fall due --lead after the creator's last tick; what was
		// still unapplied then is the backlog the run ended with.
		res.DrainMs = max(float64(end.Sub(start.Add(r.cfg.Duration+r.cfg.Lead)).Microseconds())/1000, 0)
	}
	res.fill(reports, r.rec, r.receiver, elapsed)
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

// load bulk-loads the backlog (burn-down: every alarm due within the second before
// now) and the --not-due alarms, due a day later.
func (r *benchRun) load(ctx context.Context, store ports.Store, clock *app.StoreClock, res *benchResult) error {
	now := clock.Now()
	due := r.cfg.Alarms
	if r.cfg.Rate > 0 {
		due = 0 // steady mode: the creator makes them as the run goes
	}
	as, err := bench.Build(due, r.cfg.Mix, now, now.Add(-time.Second), now)
	if err != nil {
		return err
	}
	if r.cfg.NotDue > 0 {
		later, err := bench.Build(r.cfg.NotDue, r.cfg.Mix, now, now.Add(24*time.Hour), now.Add(25*time.Hour))
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
			for _, a := range part {
				if _, _, err = store.Create(ctx, a); err != nil {
					break
				}
			}
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
func (r *benchRun) sizes(ctx context.Context) []tableSize {
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
func (r *benchRun) expectedApplied(n int64) int64 {
	amo := int64(float64(n) * r.cfg.Mix.AtMostOnceFraction)
	return n + amo
}

// startReceiver runs the local webhook receiver (webhook waker only).
func (r *benchRun) startReceiver() (url, secret string, stop func(), err error) {
	if r.cfg.Waker != "webhook" {
		return "", "", func() {}, nil
	}
	secret = randomHex(16)
	r.rec = bench.NewRecorder()
	r.receiver = bench.NewReceiver(r.rec, func(header string, body []byte) error {
		return webhook.Verify([]byte(secret), header, body, time.Now(), time.Minute)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", nil, fmt.Errorf("bench: receiver: %w", err)
	}
	srv := &http.Server{Handler: r.receiver, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/wake", secret, func() { _ = srv.Close() }, nil
}

func (r *benchRun) startNodes(ctx context.Context, wakeURL, secret string) error {
	cfg := benchNodeConfig{Store: r.db.url, Waker: r.cfg.Waker, WakeURL: wakeURL, WakeSecret: secret,
		Batch: r.cfg.Batch, Concurrency: r.cfg.Concurrency, Tick: r.cfg.Tick, Retention: r.cfg.Retention, EventsCap: r.cfg.EventsCap}
	dir, err := os.MkdirTemp("", "chronos-bench-nodes-")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	r.nodesDir = dir
	for i := range r.cfg.Nodes {
		var n benchNode
		if r.cfg.inProcess() {
			n, err = newDispatcherNode(ctx, cfg, r.log)
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

func (r *benchRun) stopNodes() ([]benchNodeReport, error) {
	var reports []benchNodeReport
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

func (r *benchRun) applied() int64 {
	var total int64
	for _, n := range r.nodes {
		total += n.progress().Applied
	}
	return total
}

// watch prints a progress line every second and returns when every expected outcome
// is applied (burn-down), or when the creator is done and what it created is applied
// (steady), with the time the last outcome was applied.
func (r *benchRun) watch(ctx context.Context, start time.Time, want int64, creator *benchCreator) (time.Time, bool) {
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
		var applied, delivered int64
		var last time.Time
		for _, n := range r.nodes {
			p := n.progress()
			applied += p.Applied
			delivered += p.Delivered
			if p.LastApplied.After(last) {
				last = p.LastApplied
			}
		}
		if creator != nil {
			want = r.expectedApplied(creator.created.Load())
		}
		if now := time.Now(); now.After(nextLine) {
			line := fmt.Sprintf("bench: %5.1fs  delivered %d  applied %d/%d  %d/s", now.Sub(start).Seconds(), delivered, applied, want, applied-prevApplied)
			if r.rec != nil {
				line += fmt.Sprintf("  receiver %d", r.rec.Delivered())
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
		done := applied >= want
		if creator != nil {
			done = done && creator.finished()
		}
		if done {
			return last, true
		}
	}
}
