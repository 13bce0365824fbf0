package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/chronoshq/chronos/adapters/metrics"
	"github.com/chronoshq/chronos/adapters/webui"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/ports"
)

// The operator's side of `chronos serve`: metrics, the pause gate, the admin use cases
// and the node that samples the alarm counts.

func provideMetrics(log *zap.Logger) *metrics.Metrics {
	return metrics.New(metrics.Options{Version: Version(), Logger: log.Named("metrics")})
}

func provideGate(s ports.Store, m *metrics.Metrics, cfg *serveConfig, log *zap.Logger) *app.DispatchGate {
	return app.NewDispatchGate(s, cfg.Tick, m, log.Named("dispatch-gate"))
}

func provideRetention(s ports.Store, m *metrics.Metrics, worker string, cfg *serveConfig, log *zap.Logger) (*app.Retention, error) {
	rc := cfg.retention(worker)
	rc.Metrics = m
	return app.NewRetention(s, rc, log.Named("retention"))
}

func provideAdmin(s ports.Store, c *app.StoreClock, gate *app.DispatchGate, r *app.Retention, cfg *serveConfig, log *zap.Logger) *app.Admin {
	return app.NewAdmin(s, c, gate, r, app.AdminConfig{
		Lease:         cfg.Lease,
		WorkerTimeout: 3 * heartbeatInterval(cfg.Lease),
	}, log.Named("admin"))
}

// countSampleInterval is how often one node of the cluster counts the alarms for the
// metrics (a read of every alarm's status).
const countSampleInterval = 15 * time.Second

func runCountSampler(lc fx.Lifecycle, s ports.Store, m *metrics.Metrics, worker string, cfg *serveConfig, log *zap.Logger) {
	cs := app.NewCountSampler(s, m, worker, countSampleInterval, cfg.Lease, log.Named("count-sampler"))
	runBackground(lc, cs.Run)
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

// runBackground runs fn from start to stop, waiting for it to return on stop.
func runBackground(lc fx.Lifecycle, fn func(context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				defer close(done)
				fn(ctx)
			}()
			return nil
		},
		OnStop: func(stop context.Context) error {
			cancel()
			select {
			case <-done:
			case <-stop.Done():
			}
			return nil
		},
	})
}

// withDashboard mounts the web dashboard at /ui/ in front of the API, and runs the
// sampler of its charts, unless --ui=false (then /ui/ is the API's 404 like any
// unknown path).
func withDashboard(lc fx.Lifecycle, api http.Handler, s ports.Store, adm *app.Admin, tokens *app.Tokens, cfg *serveConfig, log *zap.Logger) (http.Handler, error) {
	if !cfg.UI {
		return api, nil
	}
	ui, err := webui.New(adm, tokens, s, webui.Options{ShowPayloads: cfg.ShowPayloads, Logger: log.Named("ui")})
	if err != nil {
		return nil, err
	}
	runBackground(lc, ui.Series().Run)
	mux := http.NewServeMux()
	mux.Handle(webui.Prefix, ui)
	mux.Handle("/", api)
	return mux, nil
}
