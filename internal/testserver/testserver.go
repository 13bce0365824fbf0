// Package testserver builds, for a test, the API (and the dashboard) of one chronos node
// over a fresh SQLite store, assembled by chronos.New as `chronos serve` is but without a
// dispatcher or background work, so the test decides what happens to due alarms (env.Fail and friends, or
// the store directly). The client, CLI, API and dashboard tests share it instead of
// each writing out the same wiring.
package testserver

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/metrics"
	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/adapters/webui"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/app/owners"
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
	// --quota-refresh (0: owners.DefaultQuotaRefresh) and --rate-limit. LimitsClock, when
	// set, is the clock both measure time on, so a test can move it.
	MaxActiveAlarmsPerOwner int
	QuotaRefresh            time.Duration
	RateLimit               int
	LimitsClock             ports.Clock
	// AuthFailuresPerMinute is --auth-failure-limit (0: off), on LimitsClock too.
	AuthFailuresPerMinute int
	// MaxCalendarsPerOwner, MaxCalendarEntries, MaxBulkPerCall and MaxBulkCalls are
	// chronos.Config's (0: the defaults).
	MaxCalendarsPerOwner, MaxCalendarEntries int
	MaxBulkPerCall, MaxBulkCalls             int
	// Metrics serves Prometheus metrics (adapters/metrics) at GET /metrics and counts
	// into them, as `chronos serve` does.
	Metrics bool
	// BackupDir is --backup-dir: where an admin's backups on request go ("": none).
	BackupDir string
	// ReadReplica, when set, makes the node's read replica (--store-replica) from its
	// store, e.g. the store itself with a lag of the test's choosing.
	ReadReplica func(*sqlite.Store) ports.ReadReplica
}

// Server is one node's use cases over its store, and its HTTP handler.
type Server struct {
	Store     *sqlite.Store
	Alarms    *owners.Alarms
	Tokens    *admin.Tokens
	Admin     *admin.Admin
	Endpoints *admin.Endpoints
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
	holder := opts.RetentionHolder
	if holder == "" {
		holder = "test-node"
	}
	cfg := chronos.Config{
		// Never called without a dispatcher: the test decides what happens to due alarms.
		Waker:    noWakes{},
		WorkerID: holder, Lease: time.Minute, MaxFailures: MaxFailures, Retention: time.Hour,
		MaxActiveAlarmsPerOwner: opts.MaxActiveAlarmsPerOwner, QuotaRefresh: opts.QuotaRefresh,
		RateLimit: opts.RateLimit, LimitsClock: opts.LimitsClock, AuthFailuresPerMinute: opts.AuthFailuresPerMinute,
		MaxCalendarsPerOwner: opts.MaxCalendarsPerOwner, MaxCalendarEntries: opts.MaxCalendarEntries,
		MaxBulkPerCall: opts.MaxBulkPerCall, MaxBulkCalls: opts.MaxBulkCalls,
		Dashboard: opts.Dashboard, ShowPayloads: opts.ShowPayloads, BackupDir: opts.BackupDir,
		Without: chronos.Without{Dispatcher: true, Background: true},
	}
	if opts.ReadReplica != nil {
		cfg.ReadReplica = opts.ReadReplica(store)
	}
	if opts.Metrics {
		m := metrics.New(metrics.Options{})
		cfg.Metrics, cfg.MetricsHandler = m, m.Handler()
	}
	node, err := chronos.New(store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Start(ctx); err != nil { // syncs the clock; starts nothing
		t.Fatal(err)
	}
	return &Server{Store: store, Alarms: node.Alarms(), Tokens: node.Tokens(), Admin: node.Admin(),
		Endpoints: node.Endpoints(), UI: node.Dashboard(), Handler: node.Handler()}
}

// noWakes is the waker of a node without a dispatcher.
type noWakes struct{}

func (noWakes) Wake(context.Context, domain.Wake) error {
	return errors.New("testserver: a node without a dispatcher delivers no wake")
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
		// What a dispatcher's webhook would have recorded of the answer (the attempt log).
		o.Receipt = &domain.Receipt{Duration: 3 * time.Millisecond, Status: 503, ContentType: "text/plain", Body: []byte("receiver down")}
		if o.Delivered {
			o.Receipt = &domain.Receipt{Duration: time.Millisecond, Status: 204}
		}
		tr := domain.Decide(domain.Begin(a, c.Now, domain.Policy{}), o, c.Now, domain.Policy{Backoff: domain.DefaultBackoff})
		if _, err := s.Store.Apply(ctx, []domain.Transition{tr}); err != nil {
			t.Fatal(err)
		}
	}
}
