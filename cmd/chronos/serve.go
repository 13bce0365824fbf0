package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/metrics"
	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/flagenv"
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
		return fmt.Errorf("refusing to start:\n%w", err)
	}
	log, err := newLogger(cfg.LogFormat, cfg.LogLevel, stderr)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	for _, w := range cfg.warnings {
		log.Warn(w)
	}

	fxApp := fx.New(
		fx.Supply(&cfg, log, fx.Annotate(stdout, fx.As(new(io.Writer)))),
		fx.WithLogger(func() fxevent.Logger {
			l := &fxevent.ZapLogger{Logger: log.Named("fx")}
			l.UseLogLevel(zapcore.DebugLevel)
			return l
		}),
		serveModule,
		fx.StartTimeout(30*time.Second),
		fx.StopTimeout(cfg.DrainTimeout+15*time.Second),
	)
	if err := fxApp.Err(); err != nil {
		return err
	}
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := fxApp.Start(startCtx); err != nil {
		return err
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
	fx.Provide(provideStore, provideWaker, provideMetrics, provideNode),
	fx.Invoke(runNode, runHTTP, runMetricsListener),
)

func provideStore(lc fx.Lifecycle, cfg *serveConfig, log *zap.Logger) (ports.Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := openStore(ctx, cfg.Store, !cfg.NoMigrate)
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(func() error { return s.Close() }))
	log.Info("store open", zap.String("store", redact(cfg.Store)), zap.Bool("database_clock", s.Capabilities().DatabaseClock), zap.Bool("wake_hints", s.Capabilities().WakeHints))
	return s, nil
}

func provideWaker(lc fx.Lifecycle, s ports.Store, m *metrics.Metrics, cfg *serveConfig, stdout io.Writer, log *zap.Logger) (ports.Waker, error) {
	if cfg.Dev {
		return webhook.NewPrinter(stdout), nil
	}
	w, err := webhook.New(webhook.Options{
		URL:       cfg.WakeURL,
		Secrets:   cfg.WakeSecrets.Values,
		Timeout:   cfg.DeliveryTimeout,
		MaxConns:  cfg.Concurrency,
		UserAgent: "chronos/" + Version(),
	})
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(w.Close))
	// Alarms that name an endpoint are woken at its URL with its secrets; the rest at
	// --wake-url. Each endpoint's waker keeps its own connections.
	build := func(e domain.Endpoint) (ports.Waker, error) {
		timeout := cfg.DeliveryTimeout
		if e.Timeout > 0 {
			timeout = min(e.Timeout, cfg.DeliveryTimeout) // the dispatcher's deadline is the node's
		}
		conns := cfg.Concurrency
		if e.MaxInFlight > 0 {
			conns = min(conns, e.MaxInFlight)
		}
		return webhook.New(webhook.Options{URL: e.URL, Secrets: e.Secrets, Timeout: timeout, MaxConns: conns,
			UserAgent: "chronos/" + Version()})
	}
	return app.NewEndpointRouter(w, s, build, app.EndpointRouterConfig{
		BreakerFailures: cfg.BreakerFailures, BreakerCooldown: cfg.BreakerCooldown, Log: log.Named("endpoints"), Metrics: m,
		QueueWait: cfg.endpointQueueWait(), SendTimeout: cfg.DeliveryTimeout,
	}), nil
}

func provideMetrics(log *zap.Logger) *metrics.Metrics {
	return metrics.New(metrics.Options{Version: Version(), Logger: log.Named("metrics")})
}

func provideNode(s ports.Store, w ports.Waker, m *metrics.Metrics, cfg *serveConfig, log *zap.Logger) (*chronos.Node, error) {
	clock, skew, err := storeClockOptions()
	if err != nil {
		return nil, err
	}
	if skew != 0 {
		log.Warn("TEST-ONLY: the process clock is shifted", zap.String("env", testClockSkewEnv), zap.Duration("skew", skew))
	}
	return chronos.New(s, chronos.Config{
		Waker: w, Version: Version(),
		Tick: cfg.Tick, Lease: cfg.Lease, Batch: cfg.Batch, Concurrency: cfg.Concurrency,
		DeliveryTimeout: cfg.DeliveryTimeout, DrainTimeout: cfg.DrainTimeout,
		Backoff: domain.Backoff{Base: cfg.BackoffBase, Cap: cfg.BackoffCap}, MaxFailures: cfg.MaxFailures,
		MisfireThreshold: cfg.MisfireThreshold, OwnerMaxInFlight: cfg.OwnerMaxInFlight, UnfairClaims: cfg.UnfairClaims,
		Retention: cfg.Retention, EventsPerAlarm: cfg.EventsPerAlarm,
		MaxActiveAlarmsPerOwner: cfg.MaxActive, QuotaRefresh: cfg.QuotaRefresh, RateLimit: cfg.RateLimit,
		Metrics: m, MetricsHandler: m.Handler(), Dashboard: cfg.UI, ShowPayloads: cfg.ShowPayloads, PublicURL: cfg.PublicURL,
		Logger: log, ClockOptions: clock,
	})
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
				zap.Int("rate_limit_per_token", cfg.RateLimit))
			if cfg.ShowPayloads {
				log.Warn("--admin-show-payloads: admin views show alarm payloads and wake messages in full")
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

func runHTTP(lc fx.Lifecycle, n *chronos.Node, cfg *serveConfig, log *zap.Logger) {
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
			ln, err := net.Listen("tcp", cfg.Listen)
			if err != nil {
				return fmt.Errorf("listening on %s: %w", cfg.Listen, err)
			}
			if cfg.Dev {
				devToken(ctx, n, log)
			}
			log.Info("chronos serving", zap.String("listen", ln.Addr().String()), zap.String("version", Version()), zap.Bool("dev", cfg.Dev), zap.Bool("ui", cfg.UI),
				zap.Bool("tls", srv.TLSConfig != nil), zap.String("public_url", cfg.PublicURL))
			go func() {
				serve := srv.Serve
				if srv.TLSConfig != nil {
					serve = func(ln net.Listener) error { return srv.ServeTLS(ln, "", "") }
				}
				if err := serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
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
func runMetricsListener(lc fx.Lifecycle, m *metrics.Metrics, cfg *serveConfig, log *zap.Logger) {
	if cfg.MetricsListen == "" {
		return
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			ln, err := net.Listen("tcp", cfg.MetricsListen)
			if err != nil {
				return fmt.Errorf("listening on --metrics-listen %s: %w", cfg.MetricsListen, err)
			}
			log.Info("metrics serving", zap.String("listen", ln.Addr().String()))
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
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
	existing, err := n.Tokens().List(ctx)
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
