package metrics

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// failing is a collector whose every collection fails.
type failing struct{ desc *prometheus.Desc }

func (f failing) Describe(ch chan<- *prometheus.Desc) { ch <- f.desc }
func (f failing) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.NewInvalidMetric(f.desc, errors.New("the store is down"))
}

func TestAFailingCollectorIsLoggedAndTheRestServed(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	m := New(Options{Logger: zap.New(core)})
	m.registry.MustRegister(failing{prometheus.NewDesc("test_failing", "Always fails.", nil, nil)})
	m.Claimed(1, 0)

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d, want 200: one collector failing must not fail the scrape", rec.Code)
	}
	if !strings.Contains(rec.Body.String(), "chronos_claimed_total 1") {
		t.Errorf("chronos_claimed_total missing from a scrape with a failing collector:\n%s", rec.Body)
	}
	// The handler counts a failure after serving, so the next scrape shows it.
	rec = httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `promhttp_metric_handler_errors_total{cause="gathering"} 1`) {
		t.Errorf("the failure is not counted in promhttp_metric_handler_errors_total")
	}
	entries := logs.FilterMessage("serving metrics failed").All()
	if len(entries) != 2 || !strings.Contains(entries[0].ContextMap()["error"].(string), "the store is down") {
		t.Errorf("logged %v, want one entry per scrape carrying the collector's error", logs.All())
	}

	// Without a logger the failure is still served around, not a panic.
	m = New(Options{})
	m.registry.MustRegister(failing{prometheus.NewDesc("test_failing", "Always fails.", nil, nil)})
	rec = httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("without a logger: status %d, want 200", rec.Code)
	}
}
