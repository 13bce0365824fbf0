package metrics

import (
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
)

// Handler serves this Metrics' registry: the Prometheus text format, or OpenMetrics
// when the scraper negotiates it. A collector that fails is logged and left out of
// that scrape; the rest is still served.
func (m *Metrics) Handler() http.Handler { return m.handler }

func newHandler(reg *prometheus.Registry, log *zap.Logger) http.Handler {
	opts := promhttp.HandlerOpts{
		ErrorHandling:     promhttp.ContinueOnError,
		Registry:          reg, // counts its own failures in promhttp_metric_handler_errors_total
		EnableOpenMetrics: true,
	}
	if log != nil {
		opts.ErrorLog = zapPrintln{log}
	}
	return promhttp.HandlerFor(reg, opts)
}

// zapPrintln is the promhttp.Logger of a *zap.Logger.
type zapPrintln struct{ log *zap.Logger }

func (l zapPrintln) Println(v ...any) {
	l.log.Warn("serving metrics failed", zap.String("error", fmt.Sprint(v...)))
}
