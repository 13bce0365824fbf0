package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/ports"
)

// Wiring is what the binary that runs the bench supplies, and the bench must not choose
// itself.
type Wiring struct {
	// Open opens a store URL (sqlite://, postgres://, mysql://), migrating its schema
	// when asked: the binary's own, so the bench measures the very stores `chronos
	// serve` opens, and names no adapter twice.
	Open func(ctx context.Context, url string, migrate bool) (ports.Store, error)
	// Version is what the nodes report: the webhook User-Agent and the worker rows.
	Version string
	// Log gets the nodes' warnings; nil: none.
	Log *zap.Logger
}

func (w Wiring) log() *zap.Logger {
	if w.Log == nil {
		return zap.NewNop()
	}
	return w.Log
}

// Config is every setting of `chronos bench`. The bench reads no CHRONOS_*
// environment: a figure must be reproducible from the command line quoted beside it.
type Config struct {
	Store        string
	Nodes        int
	InProcess    bool
	Process      bool
	Waker        string
	Alarms       int
	NotDue       int
	Mix          Mix
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
	ListRounds   int
	UnfairClaims bool
	// WakeURLMaxInFlight is the nodes' --wake-url-max-in-flight.
	WakeURLMaxInFlight int
	// OTelEndpoint is the nodes' --otel-endpoint ("": no spans).
	OTelEndpoint string
	// The fairness mode (fairness.go).
	NoisyOwner  int
	QuietOwners int
	QuietRate   int
	QuietBefore time.Duration
	QuietAfter  time.Duration
	AlsoUnfair  bool
	// The hung-endpoint mode (hung.go); it shares the fairness mode's trickle settings.
	HungEndpoint        int
	EndpointMaxInFlight int
	DeliveryTimeout     time.Duration
	AlsoWithout         bool
	// Punctuality is the punctuality mode (punctuality.go): serve nodes with the
	// default flags, lateness taken at a receiver.
	Punctuality bool
	// PunctualityNoise and NoiseAlarms are its noise (punctuality_noise.go).
	PunctualityNoise string
	NoiseAlarms      int
	// hungWithout is --also-without's second run: the hung endpoint's alarms are not
	// loaded, and the hung period lasts --duration (the first run's).
	hungWithout bool
}

// RegisterFlags defines every option of `chronos bench` on fs, with its default.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
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
	fs.BoolVar(&c.Mix.Tags, "tags", false, "give every alarm two tags, customer:<(n/10) mod 100> (1% each; with the default --cron, a tenth of each customer's are cron series) and plan:pro|free (half each), for the tag variants of --list-clients")
	fs.IntVar(&c.Rate, "rate", 0, "steady mode: once alarms created per second (--cron applies to burn-down only), each due --lead after its creation (0: burn-down)")
	fs.DurationVar(&c.Duration, "duration", 30*time.Second, "steady mode: how long alarms are created; --hung-endpoint: the longest the hung period lasts (it ends sooner once every hung alarm had an attempt)")
	fs.DurationVar(&c.Lead, "lead", 2*time.Second, "steady mode, and --noisy-owner's quiet owners' and --hung-endpoint's fast endpoint's alarms: how far ahead of its creation an alarm falls due")
	fs.IntVar(&c.Batch, "batch", 1000, "dispatcher --batch")
	fs.IntVar(&c.Concurrency, "concurrency", 0, "dispatcher --concurrency (0: 4000 for burn-down and steady runs; serve's own default, 1000, for --noisy-owner and --hung-endpoint, which measure what a serve node does for its owners)")
	fs.DurationVar(&c.Tick, "tick", time.Second, "dispatcher --tick")
	fs.DurationVar(&c.Timeout, "timeout", 10*time.Minute, "give up when the run has not finished by then")
	fs.BoolVar(&c.Keep, "keep", false, "keep the bench database (or file) afterwards")
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "write a CPU profile of the run (worker processes: FILE.nodeN)")
	fs.IntVar(&c.ListClients, "list-clients", 0, "after the run, this many clients page through the bench owner's alarms with store.List (first page, deep page, two status filters; with --tags, tag filters too); 0: no list benchmark")
	fs.DurationVar(&c.ListDuration, "list-duration", 10*time.Second, "--list-clients: how long each variant runs")
	fs.IntVar(&c.ListRounds, "list-rounds", 1, "--list-clients: run every variant this many times, the variants in turn in each round (several runs of each from one load)")
	fs.StringVar(&c.Via, "via", "store", "steady mode: how alarms are created: store (owners.Alarms.CreateBatch, the API's own path, one transaction per 10 ms) or api (POST /v1/alarms/batch to an HTTP API the bench runs next to the node)")
	fs.DurationVar(&c.Retention, "retention", 0, "run retention in the nodes as serve does, with this --retention (0: off; at least 1m)")
	fs.IntVar(&c.EventsCap, "events-per-alarm", 1000, "serve's --events-per-alarm, with --retention")
	fs.BoolVar(&c.FindKnee, "find-knee", false, "steady runs at rising --rate (from --rate, default 5000) to find the highest with lag p99 under --knee-p99 and no backlog left")
	fs.DurationVar(&c.KneeP99, "knee-p99", 50*time.Millisecond, "--find-knee: the lag p99 a rate must stay under")
	fs.BoolVar(&c.UnfairClaims, "unfair-claims", false, "run the nodes with serve's --unfair-claims: under a backlog, claims take the oldest due first whoever owns them")
	fs.StringVar(&c.OTelEndpoint, "otel-endpoint", "", "the nodes' --otel-endpoint: export their spans over OTLP/HTTP to this URL (\"\": none), to measure what tracing costs")
	fs.IntVar(&c.WakeURLMaxInFlight, "wake-url-max-in-flight", 0, "the nodes' --wake-url-max-in-flight (0: serve's default, 128, with --waker webhook; -1: no limit)")
	fs.IntVar(&c.NoisyOwner, "noisy-owner", 0, "fairness mode: owner "+BurstOwner+" has this many once alarms due at one instant, beside the quiet owners' steady trickle due before, during and after it; reports the quiet owners' lag while the burst drains, and its drain rate (0: off)")
	fs.IntVar(&c.QuietOwners, "quiet-owners", 8, "--noisy-owner: how many quiet owners ("+QuietOwners(1)[0]+", "+QuietOwners(2)[1]+", ...)")
	fs.IntVar(&c.QuietRate, "quiet-rate", 80, "--noisy-owner: the quiet owners' alarms per second, in all (owners in turn, due at even intervals); --hung-endpoint: the fast endpoint's")
	fs.DurationVar(&c.QuietBefore, "quiet-before", time.Second, "--noisy-owner: how long the quiet owners' alarms fall due before the burst does; --hung-endpoint: the fast endpoint's, before the hung endpoint's")
	fs.DurationVar(&c.QuietAfter, "quiet-after", time.Second, "--noisy-owner: how long they go on falling due after the burst's last wake; --hung-endpoint: after the hung period")
	fs.BoolVar(&c.AlsoUnfair, "also-unfair", false, "--noisy-owner: run again with --unfair-claims on a new database, and compare the two runs")
	fs.IntVar(&c.HungEndpoint, "hung-endpoint", 0, "hung-endpoint mode (with --waker webhook): owner "+HungOwner+" has this many once alarms due at one instant for its endpoint \""+HungEndpoint+"\", which never answers; owner "+FastOwner+"'s endpoint \""+FastEndpoint+"\" answers at once and gets a steady trickle (--quiet-rate) due before, during and after the hung period; reports the fast endpoint's lag while the hung one holds its wakes (0: off)")
	fs.IntVar(&c.EndpointMaxInFlight, "endpoint-max-in-flight", 10, "--hung-endpoint: both endpoints' max_in_flight (0: no cap)")
	fs.DurationVar(&c.DeliveryTimeout, "delivery-timeout", 5*time.Second, "--hung-endpoint: the nodes' --delivery-timeout and both endpoints' timeout")
	fs.BoolVar(&c.Punctuality, "punctuality", false, "punctuality mode: --nodes `chronos serve` processes with the default flags (--tick only when given), one alarm created every 100ms over the API on a random node for --duration, due 50ms to 60s later, an @every 1s and a six-field every-second series throughout; reports each wake's lateness at a receiver over loopback (arrival − scheduled_for), then the idle nodes' store calls")
	fs.StringVar(&c.PunctualityNoise, "punctuality-noise", "", "--punctuality with noise: the quiet owner's alarms each due 500ms after its create, while burst (another owner's --noise-alarms due at once on the wake URL), hung (another owner's endpoint that never answers, --noise-alarms wakes due at once, the quiet owner on an endpoint of its own), sibling (the quiet owner's two endpoints with --noise-alarms due at once each, one hanging) or sibling-answering (both answering) falls due 5s in; endpoints take --endpoint-max-in-flight and --delivery-timeout; abuse: another owner attacks throughout (SSRF by name with redeliveries, calendar floods and previews, bulk dry runs and cancels by cursor over --noise-alarms alarms of its own, 16 MB batches); none: the trickle alone, to compare with")
	fs.IntVar(&c.NoiseAlarms, "noise-alarms", 0, "--punctuality-noise: how many alarms the noise has (0: 30000 burst, 3000 hung, 200 sibling, 100000 abuse)")
	fs.BoolVar(&c.AlsoWithout, "also-without", false, "--hung-endpoint: run again on a new database without the hung endpoint's alarms (the hung period as long as the first run's), and compare the fast endpoint's lag: the p99 the hung endpoint added")
}

// Concurrency defaults: a burn-down or steady run measures what a node can do, with room
// for every wake a claim brings; the fairness modes measure what an owner gets from a
// node run as serve runs it, whose --concurrency (and so --owner-max-in-flight) is 1000.
const (
	throughputConcurrency = 4000
	serveConcurrency      = 1000
)

func (c *Config) validate() error {
	var errs []error
	if c.Concurrency == 0 {
		c.Concurrency = throughputConcurrency
		if c.NoisyOwner != 0 || c.HungEndpoint != 0 {
			c.Concurrency = serveConcurrency
		}
	}
	if c.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("--concurrency must be at least 1, got %d", c.Concurrency))
	}
	if c.Nodes < 1 {
		errs = append(errs, fmt.Errorf("--nodes must be at least 1, got %d", c.Nodes))
	}
	if c.Waker != "noop" && c.Waker != "webhook" {
		errs = append(errs, fmt.Errorf("--waker must be noop or webhook, got %q", c.Waker))
	}
	if c.Rate == 0 && c.Alarms < 1 {
		errs = append(errs, fmt.Errorf("--alarms must be at least 1, got %d", c.Alarms))
	}
	if c.ListRounds < 1 {
		errs = append(errs, fmt.Errorf("--list-rounds must be at least 1, got %d", c.ListRounds))
	}
	if c.Via != "store" && c.Via != "api" {
		errs = append(errs, fmt.Errorf("--via must be store or api, got %q", c.Via))
	}
	if c.Process && c.InProcess {
		errs = append(errs, errors.New("--process and --in-process contradict each other"))
	}
	if c.NoisyOwner != 0 {
		errs = append(errs, c.validateFairness()...)
	}
	if c.HungEndpoint != 0 {
		errs = append(errs, c.validateHung()...)
	}
	if c.AlsoWithout && c.HungEndpoint == 0 {
		errs = append(errs, errors.New("--also-without compares two --hung-endpoint runs: it needs --hung-endpoint"))
	}
	if c.AlsoUnfair && c.NoisyOwner == 0 {
		errs = append(errs, errors.New("--also-unfair compares two --noisy-owner runs: it needs --noisy-owner"))
	}
	if c.Punctuality {
		errs = append(errs, c.validatePunctuality()...)
	} else if c.PunctualityNoise != "" {
		errs = append(errs, errors.New("--punctuality-noise needs --punctuality"))
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
func (c *Config) inProcess() bool {
	return c.InProcess || (c.Nodes == 1 && !c.Process)
}

func (c *Config) mode() string {
	switch {
	case c.Punctuality:
		return "punctuality"
	case c.NoisyOwner > 0:
		return "fairness"
	case c.HungEndpoint > 0:
		return "hung endpoint"
	case c.Rate > 0:
		return "steady"
	}
	return "burn-down"
}
