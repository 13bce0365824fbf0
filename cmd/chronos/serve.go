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

	"github.com/chronoshq/chronos/adapters/httpapi"
	"github.com/chronoshq/chronos/adapters/metrics"
	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

func serveCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg serveConfig
	fs := newFlagSet("serve", stderr)
	cfg.register(fs)
	if err := parseWithEnv(fs, args); err != nil {
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

// serveModule wires `chronos serve`. fx stops components in reverse start order: the
// HTTP server first, then the dispatcher drains, then the store closes.
var serveModule = fx.Options(
	fx.Provide(
		provideStore,
		provideClock,
		app.NewHints,
		provideWaker,
		provideAlarms,
		provideTokens,
		app.NewWorkerID,
		provideMetrics,
		provideGate,
		provideRetention,
		provideAdmin,
	),
	fx.Invoke(runDispatcher, runMaintenance, runRetention, runCountSampler, runHTTP, runMetricsListener),
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

func provideClock(s ports.Store, log *zap.Logger) (*app.StoreClock, error) {
	opts, skew, err := storeClockOptions()
	if err != nil {
		return nil, err
	}
	if skew != 0 {
		log.Warn("TEST-ONLY: the process clock is shifted", zap.String("env", testClockSkewEnv), zap.Duration("skew", skew))
	}
	c := app.NewStoreClock(opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Sync(ctx, s); err != nil {
		return nil, fmt.Errorf("reading the store's clock: %w", err)
	}
	return c, nil
}

func provideWaker(lc fx.Lifecycle, cfg *serveConfig, stdout io.Writer) (ports.Waker, error) {
	if cfg.Dev {
		return webhook.NewPrinter(stdout), nil
	}
	w, err := webhook.New(webhook.Options{
		URL:       cfg.WakeURL,
		Secret:    cfg.WakeSecret,
		Timeout:   cfg.DeliveryTimeout,
		MaxConns:  cfg.Concurrency,
		UserAgent: "chronos/" + Version(),
	})
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(w.Close))
	return w, nil
}

func provideAlarms(s ports.Store, c *app.StoreClock, h *app.Hints, cfg *serveConfig, log *zap.Logger) *app.Alarms {
	return app.NewAlarms(s, c, h, app.AlarmsConfig{
		Defaults:   domain.Defaults{MaxFailures: cfg.MaxFailures},
		HintWindow: cfg.Tick,
	}, log)
}

func provideTokens(s ports.Store, c *app.StoreClock) *app.Tokens { return app.NewTokens(s, c) }

// runDispatcher starts the dispatcher and the worker heartbeat, and drains on stop.
func runDispatcher(lc fx.Lifecycle, s ports.Store, w ports.Waker, c *app.StoreClock, h *app.Hints, m *metrics.Metrics, gate *app.DispatchGate, worker string, cfg *serveConfig, log *zap.Logger) error {
	dc := cfg.dispatcher(worker)
	dc.Metrics, dc.Gate = m, gate
	d, err := app.NewDispatcher(s, w, c, h, dc, log.Named("dispatcher"))
	if err != nil {
		return err
	}
	hb := app.NewHeartbeat(s, worker, Version(), d, heartbeatInterval(cfg.Lease), log.Named("heartbeat"))
	ctx, cancel := context.WithCancel(context.Background())
	done, hbDone := make(chan struct{}), make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				defer close(hbDone)
				hb.Run(ctx)
			}()
			go gate.Run(ctx)
			go func() {
				defer close(done)
				_ = d.Run(ctx)
			}()
			log.Info("dispatcher running", zap.String("worker", worker), zap.Duration("tick", cfg.Tick),
				zap.Duration("lease", cfg.Lease), zap.Int("batch", cfg.Batch), zap.Int("concurrency", cfg.Concurrency))
			return nil
		},
		OnStop: func(stop context.Context) error {
			cancel()
			select {
			case <-done:
				st := d.Stats()
				log.Info("dispatcher stopped", zap.Int64("delivered", st.Delivered), zap.Int64("failed", st.Failed),
					zap.Int64("abandoned", st.Abandoned), zap.Int64("stale", st.Stale))
			case <-stop.Done():
				return errors.New("dispatcher did not drain in time; unfinished wakes keep their lease and will be fired again")
			}
			// The heartbeat deregisters this worker on its way out; the store closes after
			// this hook returns, so wait, or the worker row outlives the process.
			select {
			case <-hbDone:
			case <-stop.Done():
			}
			return nil
		},
	})
	return nil
}

// runMaintenance runs the store's own upkeep (PostgreSQL without autovacuum: vacuuming
// chronos's tables) for as long as the node runs.
func runMaintenance(lc fx.Lifecycle, s ports.Store, log *zap.Logger) {
	m := app.NewMaintenance(s, 0, log.Named("maintenance"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				defer close(done)
				m.Run(ctx)
			}()
			return nil
		},
		OnStop: func(stop context.Context) error {
			cancel() // a VACUUM in progress is cancelled; it resumes at the next upkeep
			select {
			case <-done:
			case <-stop.Done():
			}
			return nil
		},
	})
}

// runRetention deletes what --retention and --events-per-alarm no longer keep, on one
// node of the cluster at a time.
func runRetention(lc fx.Lifecycle, r *app.Retention, cfg *serveConfig, log *zap.Logger) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				defer close(done)
				r.Run(ctx)
			}()
			if cfg.Retention == 0 {
				log.Info("retention off: nothing is ever deleted (--retention 0)")
			} else {
				log.Info("retention on", zap.Duration("retention", cfg.Retention), zap.Int("events_per_alarm", cfg.EventsPerAlarm))
			}
			return nil
		},
		OnStop: func(stop context.Context) error {
			cancel()
			select {
			case <-done:
				alarms, events := r.Deleted()
				log.Info("retention stopped", zap.Int64("deleted_alarms", alarms), zap.Int64("deleted_events", events))
			case <-stop.Done():
			}
			return nil
		},
	})
}

// heartbeatInterval beats often enough that a worker row is fresh well within a lease,
// and that the admin overview's "last minute" is at most 10 s stale.
func heartbeatInterval(lease time.Duration) time.Duration {
	return min(max(lease/4, time.Second), 10*time.Second)
}

func runHTTP(lc fx.Lifecycle, s ports.Store, alarms *app.Alarms, tokens *app.Tokens, adm *app.Admin, m *metrics.Metrics, cfg *serveConfig, log *zap.Logger) error {
	api := httpapi.New(alarms, tokens, s, httpapi.Options{
		Logger: log.Named("http"), Admin: adm, ShowPayloads: cfg.ShowPayloads,
		Metrics: m, MetricsHandler: m.Handler(),
	})
	handler, err := withDashboard(lc, api, s, adm, tokens, cfg, log)
	if err != nil {
		return err
	}
	if cfg.ShowPayloads {
		log.Warn("--admin-show-payloads: admin views show alarm payloads and wake messages in full")
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			ln, err := net.Listen("tcp", cfg.Listen)
			if err != nil {
				return fmt.Errorf("listening on %s: %w", cfg.Listen, err)
			}
			if cfg.Dev {
				devToken(ctx, tokens, log)
			}
			log.Info("chronos serving", zap.String("listen", ln.Addr().String()), zap.String("version", Version()), zap.Bool("dev", cfg.Dev))
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("HTTP server stopped", zap.Error(err))
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			return srv.Shutdown(ctx)
		},
	})
	return nil
}

// devToken makes `make run` usable at once: on a store with no tokens at all, it creates
// one for owner "dev" and prints it. Never in production mode.
func devToken(ctx context.Context, tokens *app.Tokens, log *zap.Logger) {
	existing, err := tokens.List(ctx)
	if err != nil || len(existing) > 0 {
		return
	}
	plain, _, err := tokens.Create(ctx, "dev", domain.ScopeOwner)
	if err != nil {
		log.Warn("creating the dev token failed", zap.Error(err))
		return
	}
	log.Info("dev mode: created a token for owner \"dev\" (shown once)", zap.String("token", plain))
}
