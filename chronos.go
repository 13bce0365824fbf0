// Package chronos embeds the chronos alarm scheduler in a Go program: one Node over a
// store you open, delivering wakes to a webhook or to a Go function in this process,
// with the HTTP API (and the dashboard) as an http.Handler to mount where you like.
//
//	store := memory.New(nil)          // or sqlite.Open, postgres.Open, mysql.Open
//	node, err := chronos.New(store, chronos.Config{
//		Handler: chronos.HandlerFunc(func(ctx context.Context, w domain.Wake) error {
//			log.Printf("woke %s (%s)", w.AlarmID, w.Label)
//			return nil // nil acknowledges; an error is a failed attempt, retried with backoff
//		}),
//	})
//	err = node.Start(ctx)
//	defer node.Stop(context.Background())
//	a, _, err := node.Alarms().Create(ctx, domain.Spec{Owner: "me", Kind: domain.KindOnce, Delay: &d})
//
// A Node is what `chronos serve` runs: the dispatcher (claims under a lease, delivers,
// retries; wakes naming an endpoint go to it), the worker heartbeat, the cluster-wide pause gate, retention, the store's
// own upkeep and the sampler of the metrics, started and stopped in the right order.
// Several Nodes (in several processes) may share a store that declares MultiProcess.
// The Node takes a store, not a URL, so a program compiles only the driver it uses.
package chronos

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/chronoshq/chronos/adapters/httpapi"
	"github.com/chronoshq/chronos/adapters/otlp"
	"github.com/chronoshq/chronos/adapters/webui"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/app/chores"
	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/app/owners"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Config is a Node's configuration. Its zero value, plus a Handler or a Waker, is a
// working node with the defaults of `chronos serve`, except that Retention, the quota
// and the rate limits are off.
type Config struct {
	// Handler receives in this process the wakes of alarms that name no endpoint (see
	// HandlerFunc); those that name one go to the endpoint (Endpoints). Exactly one of
	// Handler and Waker is set.
	Handler Handler
	// Waker delivers those wakes some other way, e.g. NewWebhookWaker's signed POSTs.
	Waker ports.Waker

	// WorkerID names this node in leases and the workers list; "" makes one from the
	// host, the pid and a random suffix.
	WorkerID string
	// Version is reported in the workers list and the metrics.
	Version string

	// The dispatcher; zero values take dispatch.DefaultConfig's.
	Tick            time.Duration  // how often an idle node reads the next due time (1s); wakes go out when due
	Lease           time.Duration  // how long a claim protects an alarm (2m)
	Batch           int            // most alarms per claim (1000)
	Concurrency     int            // most wakes in flight (1000)
	DeliveryTimeout time.Duration  // per wake (10s); an in-process handler may extend it
	DrainTimeout    time.Duration  // how long Stop lets in-flight wakes finish (10s)
	Backoff         domain.Backoff // retry delays (30s doubling to 15m)
	MaxFailures     int            // default failed deliveries before a once alarm fails (5)
	// MisfireThreshold is how late a cron occurrence may fall due before its series'
	// misfire policy treats it as missed (1m).
	MisfireThreshold time.Duration
	// OwnerMaxInFlight caps one owner's wakes in flight on this node (0: half of
	// Concurrency); UnfairClaims claims the oldest due first whoever owns them instead
	// of serving owners in turn under a backlog (docs/reliability.md, "Noisy neighbours").
	OwnerMaxInFlight int
	UnfairClaims     bool
	// WakeURLMaxInFlight keeps Waker's one receiver, which every owner's wakes share,
	// fair between them: while several owners use it, at most this many wakes are in
	// flight to it from this node and the rest wait here, owners in turn (0: 128 when
	// Waker is a *webhook.Waker, else no limit; -1: no limit).
	WakeURLMaxInFlight int
	// AttemptBodyBytes is how much of a receiver's answer each delivery attempt keeps in
	// the attempt log (GET /v1/alarms/{id}/attempts): 0 takes 1024
	// (domain.DefaultReceiptBody), NoAttemptBody keeps none; at most
	// domain.MaxReceiptBody. NewWebhookWaker reads it too.
	AttemptBodyBytes int

	// Retention deletes finished alarms and events older than this; 0 keeps
	// everything. EventsPerAlarm caps each alarm's history (0: no cap).
	Retention      time.Duration
	EventsPerAlarm int

	// MaxActiveAlarmsPerOwner refuses a create (every create: Alarms() and the API)
	// that would take its owner past this many active or paused alarms; 0: no quota.
	// QuotaRefresh is how old a node's count of an owner may get (0:
	// owners.DefaultQuotaRefresh); on N nodes an owner can end over by what the others
	// created for it in about one QuotaRefresh (docs/reliability.md).
	MaxActiveAlarmsPerOwner int
	QuotaRefresh            time.Duration
	// RateLimit paces Handler's requests per token on this node: RateLimit a second in
	// bursts of twice that, over it 429 rate_limited; 0: no limit.
	RateLimit int
	// AuthFailuresPerMinute paces, per client address on this node, Handler's requests
	// that fail to authenticate (API requests without a valid token, dashboard sign-ins
	// and sessions): that many a minute, in bursts of as many; an address past it is
	// answered 429 rate_limited before its token is looked up. Requests that
	// authenticate are never counted. 0: no limit.
	AuthFailuresPerMinute int
	// MaxCalendarsPerOwner refuses an owner's new calendar past this many (429
	// quota_exceeded); MaxCalendarEntries a calendar of more dates, weekdays and ranges
	// in all (400 naming the list). 0 takes the default (domain.DefaultMaxCalendarsPerOwner,
	// domain.DefaultMaxCalendarEntries), NoLimit none.
	MaxCalendarsPerOwner int
	MaxCalendarEntries   int
	// MaxBulkPerCall is the most alarms one owner's bulk call (POST /v1/alarms/bulk, an
	// action or a dry run) goes through; its answer's cursor goes on (0:
	// owners.DefaultBulkPerCall). MaxBulkCalls is how many owners' bulk calls (actions,
	// dry runs, redeliveries) the node runs at once, one more answered 503 (0:
	// owners.DefaultBulkCalls, NoLimit none).
	MaxBulkPerCall int
	MaxBulkCalls   int

	// Metrics receives what the node measures (adapters/metrics for Prometheus); nil:
	// none. MetricsHandler, when set, is served at GET /metrics by Handler.
	Metrics        ports.Metrics
	MetricsHandler http.Handler
	// Dashboard serves the web dashboard at /ui/ in Handler. ShowPayloads shows
	// payloads in admin views and the dashboard instead of their size and hash.
	Dashboard    bool
	ShowPayloads bool
	// SessionTTL is how long a dashboard sign-in lasts (0: webui.DefaultSessionTTL).
	SessionTTL time.Duration

	// PublicURL is the address clients reach the node at, "" when unknown. https://
	// makes the dashboard's cookies Secure and puts Strict-Transport-Security on every
	// response, also when a proxy in front terminates TLS; a request that came over TLS
	// gets both anyway (docs/security.md, L1).
	PublicURL string

	// BackupDir is where an admin's backup on request (POST /admin/v1/store/backup,
	// the dashboard's settings) is written, under a name the node chooses; "" answers
	// such requests that this node makes none. Only a store that implements
	// ports.Backuper (SQLite) makes backups.
	BackupDir string

	// ReadReplica, when set, serves the operator's lists, counts, alarm pages and
	// histories (the admin API, the dashboard) from a read-only copy of the store's
	// database, e.g. postgres.OpenReplica on a hot standby; the store serves them while
	// it fails. Claims, creates, actions and the owners' API always use the store. The
	// node does not close it.
	ReadReplica ports.ReadReplica

	// Endpoints tune the delivery of wakes whose alarm names an endpoint.
	Endpoints EndpointOptions

	// OTelEndpoint, when set, exports spans of every create, claim, wake and apply to
	// this OTLP/HTTP endpoint, e.g. "http://collector:4318" (docs/tracing.md); Stop
	// flushes them. TracerProvider, when set instead, records them with a provider of
	// your own (your OpenTelemetry SDK), which the node does not shut down. Neither:
	// no spans, and no cost. Wakes carry a child of their alarm's stored trace context
	// either way.
	OTelEndpoint   string
	TracerProvider trace.TracerProvider

	// Logger receives the node's logs; nil: none.
	Logger *zap.Logger
	// ClockOptions tune the node's clock; tests only (app.WithProcessClockSkew).
	ClockOptions []app.StoreClockOption
	// LimitsClock, when set, is the clock the quota and the rate limit measure time
	// on; tests only, so they can move it.
	LimitsClock ports.Clock
	// Without leaves parts of the node out; tests and the bench only.
	Without Without
}

// Without names the parts of a node that Start leaves out. Its zero value runs them all,
// as `chronos serve` does.
type Without struct {
	// Dispatcher: nothing is claimed; a test decides what happens to due alarms.
	Dispatcher bool
	// Background: no heartbeat, pause gate, retention, upkeep, count sampler or
	// dashboard's sampler either; Start only syncs the clock with the store.
	Background bool
	// PauseGate and CountSampler alone; the bench leaves both out, so its figures
	// count only the store work of dispatching, the heartbeat, retention and upkeep.
	PauseGate    bool
	CountSampler bool
}

// dispatcher is the configuration of the dispatcher, with the defaults filled in.
func (c Config) dispatcher(worker string) dispatch.Config {
	d := dispatch.DefaultConfig()
	d.Worker = worker
	set := func(dst *time.Duration, v time.Duration) {
		if v != 0 {
			*dst = v
		}
	}
	set(&d.Tick, c.Tick)
	set(&d.Lease, c.Lease)
	set(&d.DeliveryTimeout, c.DeliveryTimeout)
	set(&d.DrainTimeout, c.DrainTimeout)
	if c.Batch != 0 {
		d.Batch = c.Batch
	}
	if c.Concurrency != 0 {
		d.Concurrency = c.Concurrency
	}
	if c.Backoff != (domain.Backoff{}) {
		d.Policy.Backoff = c.Backoff
	}
	set(&d.Policy.MisfireThreshold, c.MisfireThreshold)
	d.OwnerMaxInFlight, d.UnfairClaims = c.OwnerMaxInFlight, c.UnfairClaims
	d.AttemptBodyBytes = c.attemptBodyBytes()
	return d
}

// NoAttemptBody is Config.AttemptBodyBytes keeping no body of any answer.
const NoAttemptBody = -1

// NoLimit turns off a Config limit whose zero value takes a default.
const NoLimit = -1

// bulkCalls is how many bulk calls the node runs at once, the default filled in; 0:
// no bound.
func (c Config) bulkCalls() int {
	switch {
	case c.MaxBulkCalls == 0:
		return owners.DefaultBulkCalls
	case c.MaxBulkCalls < 0:
		return 0
	}
	return c.MaxBulkCalls
}

// calendarLimits is the calendars' limits, the defaults filled in.
func (c Config) calendarLimits() domain.CalendarLimits {
	pick := func(v, def int) int {
		switch {
		case v == 0:
			return def
		case v < 0:
			return 0
		}
		return v
	}
	return domain.CalendarLimits{PerOwner: pick(c.MaxCalendarsPerOwner, domain.DefaultMaxCalendarsPerOwner),
		Entries: pick(c.MaxCalendarEntries, domain.DefaultMaxCalendarEntries)}
}

// attemptBodyBytes is how many body bytes an attempt keeps, AttemptBodyBytes read.
func (c Config) attemptBodyBytes() int {
	switch {
	case c.AttemptBodyBytes == 0:
		return domain.DefaultReceiptBody
	case c.AttemptBodyBytes == NoAttemptBody:
		return 0
	}
	return c.AttemptBodyBytes // another negative is refused by dispatch.Config.Validate
}

// Node is one chronos node: its use cases, its dispatcher and its background work.
type Node struct {
	store     ports.Store
	cfg       Config
	https     bool // PublicURL is https://
	log       *zap.Logger
	worker    string
	clock     *app.StoreClock
	hints     *app.Hints
	alarms    *owners.Alarms
	tokens    *admin.Tokens
	admin     *admin.Admin
	endpoints *admin.Endpoints
	calendars *owners.Calendars
	redeliver *owners.Redeliveries
	gate      *chores.DispatchGate
	retention *chores.Retention
	dispatch  *dispatch.Dispatcher
	sampler   *chores.CountSampler
	heartbeat *chores.Heartbeat
	upkeep    *chores.Maintenance
	ui        *webui.UI
	limiter   *owners.RateLimiter
	failures  *owners.AuthFailureLimiter
	tracer    trace.Tracer   // nil: no spans
	otlp      *otlp.Exporter // the exporter of Config.OTelEndpoint, flushed by Stop

	mu             sync.Mutex
	started        bool
	stopBackground context.CancelFunc
	background     sync.WaitGroup
	stopDispatch   context.CancelFunc // the dispatcher drains on cancel
	dispatchDone   chan struct{}      // closed once it has drained
}

// New builds a node over store; it does no I/O (Start does).
func New(store ports.Store, cfg Config) (*Node, error) {
	if store == nil {
		return nil, errors.New("chronos: a store is required")
	}
	waker := cfg.Waker
	switch {
	case cfg.Handler != nil && cfg.Waker != nil:
		return nil, errors.New("chronos: set Handler or Waker, not both")
	case cfg.Handler != nil:
		waker = &handlerWaker{h: cfg.Handler, log: cfg.Logger}
	case cfg.Waker == nil:
		return nil, errors.New("chronos: a Handler (in-process) or a Waker (e.g. a webhook) is required")
	}
	log := cfg.Logger
	if log == nil {
		log = zap.NewNop()
	}
	metrics := cfg.Metrics
	if metrics == nil {
		metrics = ports.NopMetrics{}
	}
	if cfg.MaxBulkPerCall < 0 {
		return nil, fmt.Errorf("chronos: MaxBulkPerCall (%d) must not be negative; 0 is the default", cfg.MaxBulkPerCall)
	}
	if cfg.MaxActiveAlarmsPerOwner < 0 || cfg.QuotaRefresh < 0 || cfg.RateLimit < 0 || cfg.AuthFailuresPerMinute < 0 {
		return nil, fmt.Errorf("chronos: MaxActiveAlarmsPerOwner (%d), QuotaRefresh (%s), RateLimit (%d) and AuthFailuresPerMinute (%d) must not be negative; 0 is off (the default refresh)",
			cfg.MaxActiveAlarmsPerOwner, cfg.QuotaRefresh, cfg.RateLimit, cfg.AuthFailuresPerMinute)
	}
	https, err := parsePublicURL(cfg.PublicURL)
	if err != nil {
		return nil, err
	}
	worker := cfg.WorkerID
	if worker == "" {
		worker = chores.NewWorkerID()
	}
	n := &Node{store: store, cfg: cfg, https: https, log: log, worker: worker, clock: app.NewStoreClock(cfg.ClockOptions...), hints: app.NewHints()}
	dc := cfg.dispatcher(worker)
	maxFailures := cfg.MaxFailures
	if maxFailures == 0 {
		maxFailures = 5
	}
	quota := owners.NewQuota(store, owners.QuotaConfig{MaxActivePerOwner: cfg.MaxActiveAlarmsPerOwner,
		Refresh: cfg.QuotaRefresh, Clock: cfg.LimitsClock, Metrics: metrics, Log: log.Named("quota")})
	bulkGate := owners.NewBulkGate(cfg.bulkCalls())
	n.alarms = owners.NewAlarms(store, n.clock, n.hints, owners.AlarmsConfig{
		Defaults: domain.Defaults{MaxFailures: maxFailures}, HintWindow: 2 * dc.Tick, Quota: quota,
		BulkPerCall: cfg.MaxBulkPerCall, BulkGate: bulkGate,
	}, log.Named("alarms"))
	n.limiter = owners.NewRateLimiter(cfg.RateLimit, cfg.LimitsClock, metrics)
	n.failures = owners.NewAuthFailureLimiter(cfg.AuthFailuresPerMinute, cfg.LimitsClock, metrics)
	n.tokens = admin.NewTokens(store, n.clock).WithLogger(log.Named("tokens"))
	n.endpoints = admin.NewEndpoints(store, n.clock, log.Named("endpoints")).WithEgress(cfg.Endpoints.egress())
	n.calendars = owners.NewCalendars(store, n.clock, cfg.calendarLimits(), log.Named("calendars"))
	n.gate = chores.NewDispatchGate(store, dc.Tick, metrics, log.Named("dispatch-gate"))
	n.retention, err = chores.NewRetention(store, chores.RetentionConfig{
		Retention: cfg.Retention, EventsPerAlarm: cfg.EventsPerAlarm, Holder: worker, Metrics: metrics,
	}, log.Named("retention"))
	if err != nil {
		return nil, fmt.Errorf("chronos: retention: %w", err)
	}
	dc.Metrics, dc.Calendars = metrics, store
	if err := n.startTracing(); err != nil {
		return nil, err
	}
	dc.Tracer = n.tracer
	if !cfg.Without.PauseGate {
		dc.Gate = n.gate
	}
	// Every node routes wakes naming an endpoint to it, whatever delivers the others.
	waker = newEndpointRouter(store, waker, cfg.Endpoints, dc, cfg.wakeURLMaxInFlight(waker), metrics, log.Named("endpoints"))
	if n.dispatch, err = dispatch.New(store, waker, n.clock, n.hints, dc, log.Named("dispatcher")); err != nil {
		return nil, fmt.Errorf("chronos: dispatcher: %w", err)
	}
	n.redeliver = owners.NewRedeliveries(store, waker, n.clock, owners.RedeliveryConfig{Worker: worker, DeliveryTimeout: dc.DeliveryTimeout, AttemptBodyBytes: dc.AttemptBodyBytes,
		BulkGate: bulkGate},
		log.Named("redeliveries"))
	interval := chores.HeartbeatInterval(dc.Lease)
	n.admin = admin.New(store, n.clock, n.gate, n.retention, admin.Config{
		Lease: dc.Lease, WorkerTimeout: 3 * interval, CountsMaxAge: 3 * countSampleInterval, BackupDir: cfg.BackupDir,
		Replica: cfg.ReadReplica, Hint: n.alarms.HintDue,
	}, log.Named("admin"))
	n.heartbeat = chores.NewHeartbeat(store, worker, cfg.Version, n.dispatch, interval, log.Named("heartbeat"))
	n.sampler = chores.NewCountSampler(store, metrics, worker, countSampleInterval, dc.Lease, log.Named("count-sampler"))
	n.upkeep = chores.NewMaintenance(store, 0, log.Named("maintenance"))
	if cfg.Dashboard {
		uo := webui.Options{ShowPayloads: cfg.ShowPayloads, Logger: log.Named("ui"),
			Tokens: n.tokens, Endpoints: n.endpoints, Calendars: n.calendars, SessionTTL: cfg.SessionTTL, SecureCookies: https}
		if n.failures != nil { // none: not even a call per request
			uo.AuthFailures = n.failures
		}
		n.ui, err = webui.New(n.admin, n.tokens, store, uo)
		if err != nil {
			return nil, err
		}
	}
	return n, nil
}

// startTracing sets the node's tracer from TracerProvider or OTelEndpoint, if either.
func (n *Node) startTracing() error {
	switch {
	case n.cfg.TracerProvider != nil:
		n.tracer = n.cfg.TracerProvider.Tracer("github.com/chronoshq/chronos")
	case n.cfg.OTelEndpoint != "":
		exp, err := otlp.New(n.cfg.OTelEndpoint, n.cfg.Version, n.worker)
		if err != nil {
			return fmt.Errorf("chronos: OTelEndpoint: %w", err)
		}
		n.otlp, n.tracer = exp, exp.Tracer()
	}
	return nil
}

// countSampleInterval is how often one node of the cluster counts the alarms for the
// metrics (a read of every alarm's status).
const countSampleInterval = 15 * time.Second

// Start syncs the node's clock with the store and starts dispatching and the background
// work. The use cases and Handler work once it has returned.
func (n *Node) Start(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.started {
		return errors.New("chronos: node already started")
	}
	if err := n.clock.Sync(ctx, n.store); err != nil {
		return fmt.Errorf("chronos: reading the store's clock: %w", err)
	}
	if !n.cfg.Without.Background {
		n.startBackground()
	}
	if !n.cfg.Without.Dispatcher {
		dispatchCtx, stopDispatch := context.WithCancel(context.Background())
		n.stopDispatch, n.dispatchDone = stopDispatch, make(chan struct{})
		go func() {
			defer close(n.dispatchDone)
			_ = n.dispatch.Run(dispatchCtx)
		}()
		d := n.dispatch.Config()
		n.log.Info("dispatcher running", zap.String("worker", n.worker), zap.Duration("tick", d.Tick),
			zap.Duration("lease", d.Lease), zap.Int("batch", d.Batch), zap.Int("concurrency", d.Concurrency))
	}
	n.started = true
	return nil
}

// startBackground starts the node's background work, each under the one context that
// Stop cancels.
func (n *Node) startBackground() {
	ctx, stop := context.WithCancel(context.Background())
	n.stopBackground = stop
	runs := []func(context.Context){n.heartbeat.Run, n.retention.Run, n.upkeep.Run}
	if !n.cfg.Without.PauseGate {
		runs = append(runs, n.gate.Run)
	}
	if !n.cfg.Without.CountSampler {
		runs = append(runs, n.sampler.Run)
	}
	if n.ui != nil {
		runs = append(runs, n.ui.Sampler().Run)
	}
	for _, run := range runs {
		n.background.Go(func() { run(ctx) })
	}
}

// Stop stops claiming, lets in-flight wakes finish (DrainTimeout) and record their
// outcomes, then stops the background work and deregisters the node. It does not close
// the store: the caller opened it. ctx bounds the wait.
func (n *Node) Stop(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.started {
		return nil
	}
	n.started = false
	var err error
	if n.stopDispatch != nil {
		n.stopDispatch()
		select {
		case <-n.dispatchDone:
		case <-ctx.Done():
			err = errors.New("chronos: the dispatcher did not drain in time; unfinished wakes keep their lease and will be fired again")
		}
		st := n.dispatch.Stats()
		n.log.Info("dispatcher stopped", zap.Int64("delivered", st.Delivered), zap.Int64("failed", st.Failed),
			zap.Int64("abandoned", st.Abandoned), zap.Int64("stale", st.Stale))
	}
	if n.stopBackground != nil {
		n.stopBackground() // the heartbeat deregisters on its way out
		done := make(chan struct{})
		go func() { n.background.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	if n.otlp != nil {
		if ferr := n.otlp.Shutdown(ctx); ferr != nil {
			n.log.Warn("exporting the last spans failed", zap.Error(ferr))
		}
	}
	return err
}

// Alarms is the owner-facing use cases: create, read, list, cancel, pause, resume,
// trigger, events.
func (n *Node) Alarms() *owners.Alarms { return n.alarms }

// Redeliveries sends past occurrences of an owner's alarms again.
func (n *Node) Redeliveries() *owners.Redeliveries { return n.redeliver }

// Tokens creates, checks and revokes API tokens.
func (n *Node) Tokens() *admin.Tokens { return n.tokens }

// Admin is the operator's use cases across owners.
func (n *Node) Admin() *admin.Admin { return n.admin }

// Endpoints is the admin's use cases on the owners' endpoints (their delivery targets).
func (n *Node) Endpoints() *admin.Endpoints { return n.endpoints }

// Calendars is the owners' use cases on their exclusion calendars.
func (n *Node) Calendars() *owners.Calendars { return n.calendars }

// Stats is what the dispatcher did so far.
func (n *Node) Stats() dispatch.StatsSnapshot { return n.dispatch.Stats() }

// WorkerID is the node's name in leases and the workers list.
func (n *Node) WorkerID() string { return n.worker }

// Retention is the node's retention (its counters: Deleted).
func (n *Node) Retention() *chores.Retention { return n.retention }

// Dashboard is the web dashboard Handler serves at /ui/; nil without Config.Dashboard.
func (n *Node) Dashboard() *webui.UI { return n.ui }

// Handler is the HTTP API (/v1, /admin/v1, /healthz, /readyz, /openapi.json, /metrics
// when Config.MetricsHandler is set) and the dashboard at /ui/ when Config.Dashboard.
// Mount it on your own server; it serves once Start has returned.
func (n *Node) Handler() http.Handler {
	opts := httpapi.Options{
		Logger: n.log.Named("http"), Admin: n.admin, Endpoints: n.endpoints, Calendars: n.calendars, Tokens: n.tokens, ShowPayloads: n.cfg.ShowPayloads,
		Redeliver: n.redeliver,
		Metrics:   n.cfg.Metrics, MetricsHandler: n.cfg.MetricsHandler, Tracer: n.tracer,
	}
	if n.limiter != nil { // none: not even a call per request
		opts.RateLimiter = n.limiter
	}
	if n.failures != nil {
		opts.AuthFailures = n.failures
	}
	api := httpapi.New(n.alarms, n.tokens, n.store, opts)
	if n.ui == nil {
		return withHSTS(n.https, api)
	}
	mux := http.NewServeMux()
	mux.Handle(webui.Prefix, n.ui)
	mux.Handle("/", api)
	return withHSTS(n.https, mux)
}
