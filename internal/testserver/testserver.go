// Package testserver builds, for a test, the API (and the dashboard) of one chronos node
// over a fresh SQLite store, wired the way `chronos serve` wires it but without a
// dispatcher, so the test decides what happens to due alarms (env.Fail and friends, or
// the store directly). The client, CLI, API and dashboard tests share it instead of
// each writing out the same wiring.
package testserver

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/httpapi"
	"github.com/chronoshq/chronos/adapters/metrics"
	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/adapters/webui"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// MaxFailures is the server default the test server's alarms are created with.
const MaxFailures = 5

// Options vary the server.
type Options struct {
	ShowPayloads bool // --admin-show-payloads
	Dashboard    bool // mount the dashboard at /ui/
	// RetentionHolder names the node in retention's lease and its recorded passes;
	// "" is "test-node". Retention keeps an hour.
	RetentionHolder string
	// The limits, as chronos.Config sets them (0: off): --max-active-alarms-per-owner,
	// --quota-refresh (0: app.DefaultQuotaRefresh) and --rate-limit. LimitsClock, when
	// set, is the clock both measure time on, so a test can move it.
	MaxActiveAlarmsPerOwner int
	QuotaRefresh            time.Duration
	RateLimit               int
	LimitsClock             ports.Clock
	// Metrics serves Prometheus metrics (adapters/metrics) at GET /metrics and counts
	// into them, as `chronos serve` does.
	Metrics bool
	// BackupDir is --backup-dir: where an admin's backups on request go ("": none).
	BackupDir string
}

// Server is one node's use cases over its store, and its HTTP handler.
type Server struct {
	Store     *sqlite.Store
	Clock     *app.StoreClock
	Alarms    *app.Alarms
	Tokens    *app.Tokens
	Admin     *app.Admin
	Endpoints *app.Endpoints
	UI        *webui.UI // nil unless Options.Dashboard
	Handler   http.Handler
}

// New builds the server on a new SQLite file in t's temporary directory; t's cleanup
// closes the store.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	ctx := t.Context()
	store, err := sqlite.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "chronos.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatalf("opening the SQLite store: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() }) // a test may have closed it already
	clock := app.NewStoreClock()
	if err := clock.Sync(ctx, store); err != nil {
		t.Fatal(err)
	}
	holder := opts.RetentionHolder
	if holder == "" {
		holder = "test-node"
	}
	retention, err := app.NewRetention(store, app.RetentionConfig{Retention: time.Hour, Holder: holder}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var m *metrics.Metrics
	apiOpts := httpapi.Options{ShowPayloads: opts.ShowPayloads}
	var counted ports.Metrics = ports.NopMetrics{}
	if opts.Metrics {
		m = metrics.New(metrics.Options{})
		counted, apiOpts.Metrics, apiOpts.MetricsHandler = m, m, m.Handler()
	}
	quota := app.NewQuota(store, app.QuotaConfig{MaxActivePerOwner: opts.MaxActiveAlarmsPerOwner,
		Refresh: opts.QuotaRefresh, Clock: opts.LimitsClock, Metrics: counted})
	if l := app.NewRateLimiter(opts.RateLimit, opts.LimitsClock, counted); l != nil {
		apiOpts.RateLimiter = l
	}
	s := &Server{Store: store, Clock: clock,
		Alarms: app.NewAlarms(store, clock, nil, app.AlarmsConfig{Defaults: domain.Defaults{MaxFailures: MaxFailures}, Quota: quota}, nil),
		Tokens: app.NewTokens(store, clock), Endpoints: app.NewEndpoints(store, clock, nil)}
	s.Admin = app.NewAdmin(store, clock, app.NewDispatchGate(store, time.Second, nil, nil), retention,
		app.AdminConfig{Lease: time.Minute, WorkerTimeout: 30 * time.Second, BackupDir: opts.BackupDir}, nil)
	apiOpts.Admin, apiOpts.Endpoints, apiOpts.Tokens = s.Admin, s.Endpoints, s.Tokens
	api := httpapi.New(s.Alarms, s.Tokens, store, apiOpts)
	s.Handler = api
	if opts.Dashboard {
		if s.UI, err = webui.New(s.Admin, s.Tokens, store, webui.Options{ShowPayloads: opts.ShowPayloads,
			Tokens: s.Tokens, Endpoints: s.Endpoints}); err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		mux.Handle(webui.Prefix, s.UI)
		mux.Handle("/", api)
		s.Handler = mux
	}
	return s
}

// Token makes a token for owner with scope and returns it in plain text.
func (s *Server) Token(t testing.TB, owner string, scope domain.Scope) string {
	t.Helper()
	plain, _, err := s.Tokens.Create(t.Context(), owner, scope)
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

// Fail makes the due alarm id fail one delivery as a dispatcher would (with one allowed
// failure it is then failed); any other due alarm claimed with it is delivered.
func (s *Server) Fail(t testing.TB, id string) {
	t.Helper()
	ctx := t.Context()
	c, err := s.Store.ClaimDue(ctx, ports.ClaimParams{Worker: "test-dispatcher", Lease: time.Minute, Batch: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range c.Alarms {
		o := domain.Delivered()
		if a.ID == id {
			o = domain.DeliveryFailed("HTTP 503: receiver down")
		}
		tr := domain.Decide(domain.Begin(a, c.Now, domain.Policy{}), o, c.Now, domain.Policy{Backoff: domain.DefaultBackoff})
		if _, err := s.Store.Apply(ctx, []domain.Transition{tr}); err != nil {
			t.Fatal(err)
		}
	}
}
