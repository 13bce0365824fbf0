package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"go.uber.org/dig"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/metrics"
	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/flagenv"
	"github.com/chronoshq/chronos/internal/storeurl"
	"github.com/chronoshq/chronos/ports"
)

func serveCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg serveConfig
	fs := flagenv.New("serve", stderr)
	cfg.register(fs)
	if err := flagenv.Parse(fs, args); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		// A setting missing or out of range: the command line (or environment) to fix.
		return flagenv.AsUsage(fs, fmt.Errorf("refusing to start:\n%w", err))
	}
	log, err := newLogger(cfg.LogFormat, cfg.LogLevel, stderr)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	for _, w := range cfg.warnings {
		log.Warn(w)
	}

	// What fails for reasons outside chronos (a port in use, a store unreachable) is
	// taken before fx builds anything: nothing has started when it fails, and the error
	// is one line naming it, not an injection chain.
	ln, err := listen(cfg)
	if err != nil {
		return err
	}
	openCtx, cancelOpen := context.WithTimeout(ctx, 30*time.Second)
	store, err := openStoreWith(openCtx, cfg.Store, openOptions{migrate: !cfg.NoMigrate, listenURL: cfg.StoreListenURL})
	if err != nil {
		cancelOpen()
		ln.close()
		return err
	}
	replica, err := openReplica(openCtx, cfg.StoreReplica)
	cancelOpen()
	if err != nil {
		ln.close()
		_ = store.Close()
		return err
	}

	fxApp := fx.New(
		fx.Supply(&cfg, log, ln, fx.Annotate(stdout, fx.As(new(io.Writer))), fx.Annotate(store, fx.As(new(ports.Store))), replica),
		fx.WithLogger(func() fxevent.Logger {
			l := &fxevent.ZapLogger{Logger: log.Named("fx")}
			l.UseLogLevel(zapcore.DebugLevel)
			l.UseErrorLevel(zapcore.DebugLevel) // the error is returned, and printed once
			return l
		}),
		serveModule,
		fx.StartTimeout(30*time.Second),
		fx.StopTimeout(cfg.DrainTimeout+15*time.Second),
	)
	if err := fxApp.Err(); err != nil {
		ln.close()
		_ = store.Close()
		replica.close()
		return dig.RootCause(err)
	}
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := fxApp.Start(startCtx); err != nil {
		ln.close() // fx stopped what had started, the store included
		return dig.RootCause(err)
	}
	<-ctx.Done()
	log.Info("shutting down: no new claims; draining in-flight wakes", zap.Duration("drain_timeout", cfg.DrainTimeout))
	stopCtx, cancelStop := context.WithTimeout(context.Background(), cfg.DrainTimeout+15*time.Second)
	defer cancelStop()
	return fxApp.Stop(stopCtx)
}

// serveModule wires `chronos serve`: flags into a chronos.Config, a chronos.Node over
// the store the URL names, and the HTTP servers. fx stops components in reverse start
// order: the HTTP servers first, then the node drains, then the store closes.
var serveModule = fx.Options(
	fx.Provide(provideWaker, provideMetrics, provideNode),
	fx.Invoke(closeStore, runNode, runHTTP, runMetricsListener),
)

// closeStore closes the store serveCommand opened after everything else has stopped:
// its hook is the first appended, so fx runs it last.
func closeStore(lc fx.Lifecycle, s ports.Store, replica readReplica, cfg *serveConfig, log *zap.Logger) {
	lc.Append(fx.StopHook(func() error { replica.close(); return s.Close() }))
	log.Info("store open", zap.String("store", storeurl.Redact(cfg.Store)), zap.Bool("database_clock", s.Capabilities().DatabaseClock), zap.Bool("wake_hints", s.Capabilities().WakeHints))
	// A PostgreSQL store declares no hints only behind a transaction pooler.
	if !s.Capabilities().WakeHints && isPostgresURL(cfg.Store) {
		log.Warn("wake hints off: --store goes through a transaction pooler, where a LISTEN is lost; "+
			"give --store-listen-url a direct URL of the database for hints. Until then nodes find due alarms every --tick",
			zap.Duration("tick", cfg.Tick))
	}
	logReplicationNotice(s, log)
	replica.logState(cfg.StoreReplica, log)
}

// replicationNoticer is a store that can tell what a failover to its standbys could
// cost (PostgreSQL).
type replicationNoticer interface {
	ReplicationNotice(ctx context.Context) (string, error)
}

// logReplicationNotice warns once, at start, when a failover could break at-most-once.
func logReplicationNotice(s ports.Store, log *zap.Logger) {
	r, ok := s.(replicationNoticer)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	notice, err := r.ReplicationNotice(ctx)
	switch {
	case err != nil:
		log.Warn("could not read the database's replication", zap.Error(err))
	case notice != "":
		log.Warn(notice)
	}
}

// listeners are serve's sockets, bound before anything starts.
type listeners struct {
	api     net.Listener
	metrics net.Listener // nil without --metrics-listen
}

func listen(cfg serveConfig) (listeners, error) {
	var ln listeners
	var err error
	if ln.api, err = net.Listen("tcp", cfg.Listen); err != nil {
		return ln, fmt.Errorf("cannot listen on --listen %s: %w", cfg.Listen, rootCause(err))
	}
	if cfg.MetricsListen != "" {
		if ln.metrics, err = net.Listen("tcp", cfg.MetricsListen); err != nil {
			ln.close()
			return ln, fmt.Errorf("cannot listen on --metrics-listen %s: %w", cfg.MetricsListen, rootCause(err))
		}
	}
	return ln, nil
}

// close releases sockets that no server has taken over yet (Serve's Shutdown closes
// them afterwards; closing twice is harmless).
func (ln listeners) close() {
	for _, l := range []net.Listener{ln.api, ln.metrics} {
		if l != nil {
			_ = l.Close()
		}
	}
}

// provideWaker is the waker of the wakes that name no endpoint: signed POSTs to
// --wake-url, or in --dev printed to stdout.
func provideWaker(lc fx.Lifecycle, cfg *serveConfig, stdout io.Writer) (ports.Waker, error) {
	if cfg.Dev {
		return webhook.NewPrinter(stdout), nil
	}
	w, err := chronos.NewWebhookWaker(cfg.node(), cfg.WakeURL, cfg.WakeSecrets.Values)
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(w.Close)) // its idle connections, once the node has drained
	return w, nil
}

func provideMetrics(s ports.Store, replica readReplica, log *zap.Logger) *metrics.Metrics {
	m := metrics.New(metrics.Options{Version: Version(), Logger: log.Named("metrics")})
	if sizer, ok := s.(ports.DiskSizer); ok {
		m.WatchStoreSize(sizer)
	}
	if replica.store != nil {
		m.WatchReplicaLag(replica.store)
	}
	return m
}

func provideNode(s ports.Store, replica readReplica, w ports.Waker, m *metrics.Metrics, cfg *serveConfig, log *zap.Logger) (*chronos.Node, error) {
	clock, skew, err := storeClockOptions()
	if err != nil {
		return nil, err
	}
	if skew != 0 {
		log.Warn("TEST-ONLY: the process clock is shifted", zap.String("env", testClockSkewEnv), zap.Duration("skew", skew))
	}
	c := cfg.node()
	c.Waker, c.Metrics, c.MetricsHandler, c.Logger, c.ClockOptions = w, m, m.Handler(), log, clock
	if replica.store != nil {
		c.ReadReplica = replica.store
	}
	if cfg.Dev { // every wake printed, those naming an endpoint too
		c.Endpoints.Waker = func(domain.Endpoint) (ports.Waker, error) { return w, nil }
	}
	return chronos.New(s, c)
}

// node is the node's configuration the flags give (validate has checked them).
func (cfg *serveConfig) node() chronos.Config {
	allow, _ := cfg.endpointAllowCIDRs()
	return chronos.Config{
		Version: Version(),
		Tick:    cfg.Tick, Lease: cfg.Lease, Batch: cfg.Batch, Concurrency: cfg.Concurrency,
		DeliveryTimeout: cfg.DeliveryTimeout, DrainTimeout: cfg.DrainTimeout,
		Backoff: domain.Backoff{Base: cfg.BackoffBase, Cap: cfg.BackoffCap}, MaxFailures: cfg.MaxFailures,
		MisfireThreshold: cfg.MisfireThreshold, OwnerMaxInFlight: cfg.OwnerMaxInFlight, UnfairClaims: cfg.UnfairClaims,
		WakeURLMaxInFlight: cfg.WakeURLMaxInFlight, AttemptBodyBytes: attemptBodyBytes(cfg.AttemptBodyBytes),
		Retention: cfg.Retention, EventsPerAlarm: cfg.EventsPerAlarm,
		MaxActiveAlarmsPerOwner: cfg.MaxActive, QuotaRefresh: cfg.QuotaRefresh, RateLimit: cfg.RateLimit,
		AuthFailuresPerMinute: cfg.AuthFailures,
		MaxCalendarsPerOwner:  orNoLimit(cfg.MaxCalendars), MaxCalendarEntries: orNoLimit(cfg.MaxCalendarEntries),
		MaxBulkPerCall: cfg.MaxBulkPerCall, MaxBulkCalls: orNoLimit(cfg.MaxBulkCalls),
		Dashboard: cfg.UI, ShowPayloads: cfg.ShowPayloads, PublicURL: cfg.PublicURL, BackupDir: cfg.BackupDir,
		OTelEndpoint: cfg.OTelEndpoint,
		Endpoints: chronos.EndpointOptions{UserAgent: "chronos/" + Version(), ReceiverErrors: webhook.ReceiverErrors(cfg.ReceiverErrors),
			BreakerFailures: cfg.BreakerFailures, BreakerCooldown: cfg.BreakerCooldown, AllowCIDRs: allow},
	}
}

// orNoLimit is a flag's limit as chronos.Config takes it: the flag's 0 (off) is NoLimit.
func orNoLimit(v int) int {
	if v == 0 {
		return chronos.NoLimit
	}
	return v
}

// runNode starts the node (dispatching and its background work) and drains it on stop.
func runNode(lc fx.Lifecycle, n *chronos.Node, cfg *serveConfig, log *zap.Logger) {
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := n.Start(ctx); err != nil {
				return err
			}
			if cfg.Retention == 0 {
				log.Info("retention off: nothing is ever deleted (--retention 0)")
			} else {
				log.Info("retention on", zap.Duration("retention", cfg.Retention), zap.Int("events_per_alarm", cfg.EventsPerAlarm))
			}
			log.Info("limits", zap.Int("max_active_alarms_per_owner", cfg.MaxActive), zap.Duration("quota_refresh", cfg.QuotaRefresh),
				zap.Int("rate_limit_per_token", cfg.RateLimit), zap.Int("auth_failures_per_address_minute", cfg.AuthFailures),
				zap.Int("max_calendars_per_owner", cfg.MaxCalendars),
				zap.Int("max_calendar_entries", cfg.MaxCalendarEntries), zap.Int("max_bulk_per_call", cfg.MaxBulkPerCall),
				zap.Int("max_bulk_calls", cfg.MaxBulkCalls))
			if cfg.ShowPayloads {
				log.Warn("--admin-show-payloads: admin views show alarm payloads and wake messages in full")
			}
			if setup := n.Admin().BackupSetup(); setup.Dir != "" && !setup.Supported {
				log.Warn("--backup-dir is unused: backups on request are for SQLite stores; use the database's own backup tools", zap.String("backup_dir", setup.Dir))
			} else if setup.Dir != "" {
				log.Info("backups on request", zap.String("backup_dir", setup.Dir))
			}
			return nil
		},
		OnStop: func(ctx context.Context) error {
			err := n.Stop(ctx)
			alarms, events := n.Retention().Deleted()
			log.Info("retention stopped", zap.Int64("deleted_alarms", alarms), zap.Int64("deleted_events", events))
			return err
		},
	})
}

func runHTTP(lc fx.Lifecycle, n *chronos.Node, ln listeners, cfg *serveConfig, log *zap.Logger) {
	srv := &http.Server{
		Handler:           n.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	stopHUP := func() {}
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if cfg.TLSCert != "" {
				certs, err := newCertReloader(cfg.TLSCert, cfg.TLSKey, log.Named("tls"))
				if err != nil {
					return err
				}
				srv.TLSConfig = certs.tlsConfig()
				var hupCtx context.Context
				hupCtx, stopHUP = context.WithCancel(context.Background())
				certs.watchSIGHUP(hupCtx, nil)
			}
			if cfg.Dev {
				devToken(ctx, n, log)
			}
			log.Info("chronos serving", zap.String("listen", ln.api.Addr().String()), zap.String("version", Version()), zap.Bool("dev", cfg.Dev), zap.Bool("ui", cfg.UI),
				zap.Bool("tls", srv.TLSConfig != nil), zap.String("public_url", cfg.PublicURL))
			go func() {
				serve := srv.Serve
				if srv.TLSConfig != nil {
					serve = func(ln net.Listener) error { return srv.ServeTLS(ln, "", "") }
				}
				if err := serve(ln.api); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("HTTP server stopped", zap.Error(err))
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			stopHUP()
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			return srv.Shutdown(ctx)
		},
	})
}

// runMetricsListener serves /metrics alone on --metrics-listen, when given, so a
// scraper can reach it on an address the API is not on.
func runMetricsListener(lc fx.Lifecycle, m *metrics.Metrics, ln listeners, log *zap.Logger) {
	if ln.metrics == nil {
		return
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			log.Info("metrics serving", zap.String("listen", ln.metrics.Addr().String()))
			go func() {
				if err := srv.Serve(ln.metrics); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("metrics server stopped", zap.Error(err))
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error { return srv.Shutdown(ctx) },
	})
}

// devToken makes `make run` usable at once: on a store with no tokens at all, it creates
// one for owner "dev" and prints it. Never in production mode.
func devToken(ctx context.Context, n *chronos.Node, log *zap.Logger) {
	existing, err := n.Tokens().List(ctx, "")
	if err != nil || len(existing) > 0 {
		return
	}
	plain, _, err := n.Tokens().Create(ctx, "dev", domain.ScopeOwner)
	if err != nil {
		log.Warn("creating the dev token failed", zap.Error(err))
		return
	}
	log.Info("dev mode: created a token for owner \"dev\" (shown once)", zap.String("token", plain))
}

// attemptBodyBytes is --attempt-body-bytes as chronos.Config takes it: 0 there is the
// default, so the flag's 0 (keep none) is chronos.NoAttemptBody.
func attemptBodyBytes(n int) int {
	if n == 0 {
		return chronos.NoAttemptBody
	}
	return n
}
