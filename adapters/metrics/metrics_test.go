package metrics_test

import (
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/chronoshq/chronos/adapters/metrics"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// scrape serves one GET of m.Handler() and parses the body with Prometheus's own
// text-format parser.
func scrape(t *testing.T, m *metrics.Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape: status %d: %s", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("scrape: Content-Type %q, want the text format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("scrape: parsing: %v", err)
	}
	return fams
}

// metric returns the one metric of family name whose labels are exactly labels, and
// fails the test when there is none.
func metric(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) *dto.Metric {
	t.Helper()
	mf, ok := fams[name]
	if !ok {
		t.Fatalf("%s: absent", name)
	}
	for _, m := range mf.GetMetric() {
		if sameLabels(m.GetLabel(), labels) {
			return m
		}
	}
	t.Fatalf("%s%v: absent", name, labels)
	return nil
}

func sameLabels(got []*dto.LabelPair, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for _, lp := range got {
		if v, ok := want[lp.GetName()]; !ok || v != lp.GetValue() {
			return false
		}
	}
	return true
}

func counter(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	return metric(t, fams, name, labels).GetCounter().GetValue()
}

func gauge(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	return metric(t, fams, name, labels).GetGauge().GetValue()
}

func histogram(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) *dto.Histogram {
	t.Helper()
	return metric(t, fams, name, labels).GetHistogram()
}

// bucket returns the cumulative count of h's bucket with upper bound le.
func bucket(t *testing.T, h *dto.Histogram, le float64) uint64 {
	t.Helper()
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() == le {
			return b.GetCumulativeCount()
		}
	}
	t.Fatalf("no bucket le=%g", le)
	return 0
}

// wantHistogram checks the series of histogram name with labels: its count, its sum
// and its cumulative buckets, by upper bound.
func wantHistogram(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string, count uint64, sum float64, buckets map[float64]uint64) {
	t.Helper()
	h := histogram(t, fams, name, labels)
	if h.GetSampleCount() != count || !near(h.GetSampleSum(), sum) {
		t.Errorf("%s%v: count %d sum %g, want %d and %g", name, labels, h.GetSampleCount(), h.GetSampleSum(), count, sum)
	}
	for le, want := range buckets {
		if got := bucket(t, h, le); got != want {
			t.Errorf("%s%v le=%g: %d, want %d", name, labels, le, got, want)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// driveAll calls every method once with a known value, so every family is present.
func driveAll(m *metrics.Metrics) {
	now := time.Date(2025, 3, 30, 7, 0, 0, 0, time.UTC)
	m.Claimed(1, time.Millisecond)
	m.Woke(ports.WakeDelivered, time.Second, 10*time.Millisecond)
	m.Stale(1)
	m.RetentionDeleted("alarms", 1)
	m.DispatchPaused(true)
	m.AlarmCounts(ports.AlarmCounts{
		ByStatus: map[domain.Status]int64{domain.StatusActive: 1},
		Due:      1, OldestDue: now.Add(-time.Second), Now: now,
	}, true)
	m.Request(http.MethodGet, "/v1/alarms/{id}", http.StatusOK, time.Millisecond)
	m.Deferred(ports.DeferredOwnerCap)
	m.ClaimOwners(3)
	m.EndpointQueues(1, 2)
	m.EndpointBreaker(true)
	m.Refused(ports.RefusedRate)
	m.EgressRefused(domain.EgressLoopback)
	m.NextDueRead()
}

var none = map[string]string{}

// deferReasons are chronos_wakes_deferred_total's reasons, pre-created like the
// refusals' and the breaker changes' labels.
var deferReasons = []string{ports.DeferredEndpointFull, ports.DeferredEndpointRate, ports.DeferredEndpointBreaker, ports.DeferredOwnerCap}

func TestEveryMetricIsExposedWithItsTypeAndHelp(t *testing.T) {
	m := metrics.New(metrics.Options{Version: "v1.2.3"})
	driveAll(m)
	fams := scrape(t, m)

	want := map[string]dto.MetricType{
		"chronos_wakes_total":                    dto.MetricType_COUNTER,
		"chronos_wake_lag_seconds":               dto.MetricType_HISTOGRAM,
		"chronos_delivery_duration_seconds":      dto.MetricType_HISTOGRAM,
		"chronos_claim_duration_seconds":         dto.MetricType_HISTOGRAM,
		"chronos_claimed_total":                  dto.MetricType_COUNTER,
		"chronos_claims_total":                   dto.MetricType_COUNTER,
		"chronos_next_due_reads_total":           dto.MetricType_COUNTER,
		"chronos_due_backlog":                    dto.MetricType_GAUGE,
		"chronos_oldest_due_lag_seconds":         dto.MetricType_GAUGE,
		"chronos_alarms":                         dto.MetricType_GAUGE,
		"chronos_retention_deleted_total":        dto.MetricType_COUNTER,
		"chronos_dispatch_paused":                dto.MetricType_GAUGE,
		"chronos_api_requests_total":             dto.MetricType_COUNTER,
		"chronos_api_request_duration_seconds":   dto.MetricType_HISTOGRAM,
		"chronos_build_info":                     dto.MetricType_GAUGE,
		"chronos_endpoint_breaker_changes_total": dto.MetricType_COUNTER,
		"chronos_endpoint_breakers_open":         dto.MetricType_GAUGE,
		"chronos_refusals_total":                 dto.MetricType_COUNTER,
		"chronos_wakes_deferred_total":           dto.MetricType_COUNTER,
		"chronos_claim_owners":                   dto.MetricType_HISTOGRAM,
		"chronos_endpoints_queuing":              dto.MetricType_GAUGE,
		"chronos_endpoint_queued_wakes":          dto.MetricType_GAUGE,
		"chronos_egress_refused_total":           dto.MetricType_COUNTER,
	}
	for name, typ := range want {
		mf, ok := fams[name]
		if !ok {
			t.Errorf("%s: absent", name)
			continue
		}
		if mf.GetType() != typ {
			t.Errorf("%s: type %s, want %s", name, mf.GetType(), typ)
		}
		if mf.GetHelp() == "" {
			t.Errorf("%s: no help", name)
		}
	}
	for name := range fams {
		if _, ok := want[name]; strings.HasPrefix(name, "chronos_") && !ok {
			t.Errorf("%s: exposed but not expected", name)
		}
	}

	if got := gauge(t, fams, "chronos_build_info", map[string]string{"version": "v1.2.3"}); got != 1 {
		t.Errorf("chronos_build_info = %g, want 1", got)
	}
	var goSeen, processSeen bool
	for name := range fams {
		goSeen = goSeen || strings.HasPrefix(name, "go_")
		processSeen = processSeen || strings.HasPrefix(name, "process_")
	}
	if !goSeen {
		t.Error("no go_ metrics")
	}
	if !processSeen && runtime.GOOS == "linux" {
		t.Error("no process_ metrics")
	}
	if _, ok := fams["go_goroutines"]; !ok {
		t.Error("go_goroutines: absent")
	}
	if _, ok := fams["process_start_time_seconds"]; !ok && runtime.GOOS == "linux" {
		t.Error("process_start_time_seconds: absent")
	}
}

func TestFixedLabelValuesReadZeroBeforeTheFirstEvent(t *testing.T) {
	fams := scrape(t, metrics.New(metrics.Options{}))
	for _, outcome := range []string{"delivered", "failed", "stale"} {
		if got := counter(t, fams, "chronos_wakes_total", map[string]string{"outcome": outcome}); got != 0 {
			t.Errorf("chronos_wakes_total{outcome=%q} = %g, want 0", outcome, got)
		}
	}
	for _, table := range []string{"alarms", "alarm_events"} {
		if got := counter(t, fams, "chronos_retention_deleted_total", map[string]string{"table": table}); got != 0 {
			t.Errorf("chronos_retention_deleted_total{table=%q} = %g, want 0", table, got)
		}
	}
	for _, reason := range []string{"quota_exceeded", "rate_limited"} {
		if got := counter(t, fams, "chronos_refusals_total", map[string]string{"reason": reason}); got != 0 {
			t.Errorf("chronos_refusals_total{reason=%q} = %g, want 0", reason, got)
		}
	}
	for _, reason := range deferReasons {
		if got := counter(t, fams, "chronos_wakes_deferred_total", map[string]string{"reason": reason}); got != 0 {
			t.Errorf("chronos_wakes_deferred_total{reason=%q} = %g, want 0", reason, got)
		}
	}
	for _, name := range []string{"chronos_claims_total", "chronos_claimed_total"} {
		if got := counter(t, fams, name, none); got != 0 {
			t.Errorf("%s = %g, want 0", name, got)
		}
	}
	if got := gauge(t, fams, "chronos_dispatch_paused", none); got != 0 {
		t.Errorf("chronos_dispatch_paused = %g, want 0", got)
	}
	if got := gauge(t, fams, "chronos_build_info", map[string]string{"version": "unknown"}); got != 1 {
		t.Errorf("chronos_build_info{version=unknown} = %g, want 1", got)
	}
	for _, name := range []string{"chronos_due_backlog", "chronos_oldest_due_lag_seconds", "chronos_alarms"} {
		if _, ok := fams[name]; ok {
			t.Errorf("%s: exposed before any sample", name)
		}
	}
}

func TestClaimsAndWakesMoveByWhatWasObserved(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.Claimed(3, 2*time.Millisecond)
	m.Claimed(0, 4*time.Millisecond)
	m.Claimed(5, 2*time.Second)
	m.Woke(ports.WakeDelivered, 1500*time.Millisecond, 20*time.Millisecond)
	m.Woke(ports.WakeDelivered, -time.Second, 30*time.Millisecond) // clock skew: counted as no lag
	m.Woke(ports.WakeFailed, 500*time.Millisecond, 10*time.Second)
	m.Stale(2)
	m.Stale(0)
	fams := scrape(t, m)

	if got := counter(t, fams, "chronos_claims_total", none); got != 3 {
		t.Errorf("chronos_claims_total = %g, want 3", got)
	}
	if got := counter(t, fams, "chronos_claimed_total", none); got != 8 {
		t.Errorf("chronos_claimed_total = %g, want 8", got)
	}
	wantHistogram(t, fams, "chronos_claim_duration_seconds", none, 3, 2.006, map[float64]uint64{.005: 2, 5: 3})

	for outcome, want := range map[string]float64{"delivered": 2, "failed": 1, "stale": 2} {
		if got := counter(t, fams, "chronos_wakes_total", map[string]string{"outcome": outcome}); got != want {
			t.Errorf("chronos_wakes_total{outcome=%q} = %g, want %g", outcome, got, want)
		}
	}
	if n := len(fams["chronos_wakes_total"].GetMetric()); n != 4 {
		t.Errorf("chronos_wakes_total has %d series, want 4 (delivered, failed, stale, deferred)", n)
	}
	wantHistogram(t, fams, "chronos_wake_lag_seconds", none, 3, 2, map[float64]uint64{.001: 1, .5: 2, 1: 2, 2.5: 3, 300: 3})
	wantHistogram(t, fams, "chronos_delivery_duration_seconds", none, 3, 10.05, map[float64]uint64{.025: 1, 30: 3})
}

func TestRetentionAndPause(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.RetentionDeleted("alarms", 5)
	m.RetentionDeleted("alarm_events", 7)
	m.RetentionDeleted("alarms", 0)
	m.RetentionDeleted("alarm_events", 1)
	m.DispatchPaused(true)
	fams := scrape(t, m)
	for table, want := range map[string]float64{"alarms": 5, "alarm_events": 8} {
		if got := counter(t, fams, "chronos_retention_deleted_total", map[string]string{"table": table}); got != want {
			t.Errorf("chronos_retention_deleted_total{table=%q} = %g, want %g", table, got, want)
		}
	}
	if got := gauge(t, fams, "chronos_dispatch_paused", none); got != 1 {
		t.Errorf("chronos_dispatch_paused = %g after pause, want 1", got)
	}
	m.DispatchPaused(false)
	if got := gauge(t, scrape(t, m), "chronos_dispatch_paused", none); got != 0 {
		t.Errorf("chronos_dispatch_paused = %g after resume, want 0", got)
	}
}

func TestSampledGaugesFollowTheSample(t *testing.T) {
	m := metrics.New(metrics.Options{})
	now := time.Date(2025, 3, 30, 7, 0, 0, 0, time.UTC)
	byStatus := map[domain.Status]int64{
		domain.StatusActive: 10, domain.StatusPaused: 2, domain.StatusFired: 30,
		// cancelled missing: reads 0
		domain.StatusFailed: 4,
	}
	m.AlarmCounts(ports.AlarmCounts{ByStatus: byStatus, Due: 6, OldestDue: now.Add(-90 * time.Second), Now: now}, true)
	byStatus[domain.StatusActive] = 999 // the caller reusing its map must not change the sample

	fams := scrape(t, m)
	if got := gauge(t, fams, "chronos_due_backlog", none); got != 6 {
		t.Errorf("chronos_due_backlog = %g, want 6", got)
	}
	if got := gauge(t, fams, "chronos_oldest_due_lag_seconds", none); got != 90 {
		t.Errorf("chronos_oldest_due_lag_seconds = %g, want 90", got)
	}
	want := map[domain.Status]float64{
		domain.StatusActive: 10, domain.StatusPaused: 2, domain.StatusFired: 30,
		domain.StatusCancelled: 0, domain.StatusFailed: 4,
	}
	for _, st := range domain.Statuses {
		if got := gauge(t, fams, "chronos_alarms", map[string]string{"status": string(st)}); got != want[st] {
			t.Errorf("chronos_alarms{status=%q} = %g, want %g", st, got, want[st])
		}
	}
	if n := len(fams["chronos_alarms"].GetMetric()); n != len(domain.Statuses) {
		t.Errorf("chronos_alarms has %d series, want %d", n, len(domain.Statuses))
	}

	// Another node samples now: this one reports none of it.
	m.AlarmCounts(ports.AlarmCounts{}, false)
	fams = scrape(t, m)
	for _, name := range []string{"chronos_due_backlog", "chronos_oldest_due_lag_seconds", "chronos_alarms"} {
		if _, ok := fams[name]; ok {
			t.Errorf("%s: still exposed after the sample was withdrawn", name)
		}
	}

	// This node samples again: the new sample, nothing of the old one.
	m.AlarmCounts(ports.AlarmCounts{ByStatus: map[domain.Status]int64{domain.StatusActive: 3}, Due: 0, Now: now}, true)
	fams = scrape(t, m)
	if got := gauge(t, fams, "chronos_due_backlog", none); got != 0 {
		t.Errorf("chronos_due_backlog = %g, want 0", got)
	}
	if got := gauge(t, fams, "chronos_oldest_due_lag_seconds", none); got != 0 {
		t.Errorf("chronos_oldest_due_lag_seconds = %g with nothing due, want 0", got)
	}
	if got := gauge(t, fams, "chronos_alarms", map[string]string{"status": "active"}); got != 3 {
		t.Errorf("chronos_alarms{status=active} = %g, want 3", got)
	}
	if got := gauge(t, fams, "chronos_alarms", map[string]string{"status": "fired"}); got != 0 {
		t.Errorf("chronos_alarms{status=fired} = %g, want 0", got)
	}
}

func TestRequests(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.Request(http.MethodGet, "/v1/alarms/{id}", http.StatusOK, 30*time.Millisecond)
	m.Request(http.MethodGet, "/v1/alarms/{id}", http.StatusOK, 70*time.Millisecond)
	m.Request(http.MethodGet, "/v1/alarms/{id}", http.StatusNotFound, 2*time.Millisecond)
	m.Request(http.MethodPost, "/v1/alarms", http.StatusCreated, 3*time.Second)
	m.Request("BREW", "unmatched", http.StatusNotFound, time.Millisecond) // any token is a valid method to net/http
	fams := scrape(t, m)

	for _, c := range []struct {
		method, route, code string
		want                float64
	}{
		{"GET", "/v1/alarms/{id}", "200", 2},
		{"GET", "/v1/alarms/{id}", "404", 1},
		{"POST", "/v1/alarms", "201", 1},
		{"other", "unmatched", "404", 1},
	} {
		labels := map[string]string{"method": c.method, "route": c.route, "code": c.code}
		if got := counter(t, fams, "chronos_api_requests_total", labels); got != c.want {
			t.Errorf("chronos_api_requests_total%v = %g, want %g", labels, got, c.want)
		}
	}
	if n := len(fams["chronos_api_requests_total"].GetMetric()); n != 4 {
		t.Errorf("chronos_api_requests_total has %d series, want 4", n)
	}
	wantHistogram(t, fams, "chronos_api_request_duration_seconds", map[string]string{"method": "GET", "route": "/v1/alarms/{id}"},
		3, .102, map[float64]uint64{.05: 2})
	wantHistogram(t, fams, "chronos_api_request_duration_seconds", map[string]string{"method": "POST", "route": "/v1/alarms"}, 1, 3, nil)
}

// Each refusal counts once under its reason, the other reason untouched.
func TestRefusals(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.Refused(ports.RefusedQuota)
	m.Refused(ports.RefusedQuota)
	m.Refused(ports.RefusedRate)
	m.Refused(ports.RefusedQuota)
	fams := scrape(t, m)
	for reason, want := range map[string]float64{"quota_exceeded": 3, "rate_limited": 1} {
		if got := counter(t, fams, "chronos_refusals_total", map[string]string{"reason": reason}); got != want {
			t.Errorf("chronos_refusals_total{reason=%q} = %g, want %g", reason, got, want)
		}
	}
}

// TestLabelValuesAreOnlyWhatWasPassed walks every chronos_ series and checks each
// label's value against what the test passed (or the documented fixed sets), so a
// label invented from anything else fails.
func TestLabelValuesAreOnlyWhatWasPassed(t *testing.T) {
	m := metrics.New(metrics.Options{Version: "v9"})
	driveAll(m)
	m.Woke(ports.WakeFailed, 0, 0)
	m.RetentionDeleted("alarm_events", 2)
	m.Request(http.MethodDelete, "/v1/alarms/{id}", http.StatusNoContent, time.Millisecond)
	m.Request(http.MethodGet, "unmatched", http.StatusNotFound, time.Millisecond)
	fams := scrape(t, m)

	statuses := map[string]bool{}
	for _, st := range domain.Statuses {
		statuses[string(st)] = true
	}
	egressClasses := map[string]bool{}
	for _, c := range domain.EgressClasses {
		egressClasses[c] = true
	}
	allowed := map[string]map[string]bool{
		"outcome": {"delivered": true, "failed": true, "stale": true, "deferred": true},
		"to":      {"open": true, "closed": true},
		"table":   {"alarms": true, "alarm_events": true},
		"reason":  {"quota_exceeded": true, "rate_limited": true},
		"class":   egressClasses,
		"status":  statuses,
		"method":  {"GET": true, "DELETE": true},
		"route":   {"/v1/alarms/{id}": true, "unmatched": true},
		"code":    {"200": true, "204": true, "404": true},
		"version": {"v9": true},
		"le":      nil, // histogram buckets: checked by the parser
	}
	// Labels whose values depend on the family: "reason" is a refusal's or a deferral's.
	deferred := map[string]bool{}
	for _, r := range deferReasons {
		deferred[r] = true
	}
	allowedIn := map[string]map[string]map[string]bool{
		"chronos_wakes_deferred_total": {"reason": deferred},
	}
	for name, mf := range fams {
		if !strings.HasPrefix(name, "chronos_") {
			continue
		}
		for _, s := range mf.GetMetric() {
			for _, lp := range s.GetLabel() {
				values, ok := allowedIn[name][lp.GetName()]
				if !ok {
					values, ok = allowed[lp.GetName()]
				}
				if !ok {
					t.Errorf("%s: unexpected label %s=%q", name, lp.GetName(), lp.GetValue())
					continue
				}
				if !values[lp.GetValue()] {
					t.Errorf("%s: label %s=%q was never passed", name, lp.GetName(), lp.GetValue())
				}
			}
		}
	}
}

func TestInvalidUTF8NeverPanics(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.Request(http.MethodGet, "/v1/\xff", http.StatusOK, 0)
	m.Woke("\xfe", 0, 0)
	m.RetentionDeleted("\xfd", 1)
	m.Deferred("\xfc")
	scrape(t, m)
}

func TestTwoInOneProcessAreIndependent(t *testing.T) {
	a := metrics.New(metrics.Options{Version: "a"})
	b := metrics.New(metrics.Options{Version: "b"})
	a.Claimed(4, time.Millisecond)
	b.Claimed(1, time.Millisecond)
	b.AlarmCounts(ports.AlarmCounts{Due: 2}, true)

	fa, fb := scrape(t, a), scrape(t, b)
	if got := counter(t, fa, "chronos_claimed_total", none); got != 4 {
		t.Errorf("a: chronos_claimed_total = %g, want 4", got)
	}
	if got := counter(t, fb, "chronos_claimed_total", none); got != 1 {
		t.Errorf("b: chronos_claimed_total = %g, want 1", got)
	}
	if _, ok := fa["chronos_due_backlog"]; ok {
		t.Error("a: chronos_due_backlog exposed; only b sampled")
	}
	if got := gauge(t, fb, "chronos_due_backlog", none); got != 2 {
		t.Errorf("b: chronos_due_backlog = %g, want 2", got)
	}
	gauge(t, fa, "chronos_build_info", map[string]string{"version": "a"})
	gauge(t, fb, "chronos_build_info", map[string]string{"version": "b"})
}

func TestOpenMetricsIsNegotiated(t *testing.T) {
	m := metrics.New(metrics.Options{})
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Errorf("Content-Type %q, want OpenMetrics", ct)
	}
}

// TestConcurrentUse is for -race: every method from many goroutines while scraping.
func TestConcurrentUse(t *testing.T) {
	m := metrics.New(metrics.Options{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				driveAll(m)
				m.AlarmCounts(ports.AlarmCounts{}, false)
			}
		})
	}
	wg.Go(func() {
		for range 10 {
			rec := httptest.NewRecorder()
			m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		}
	})
	wg.Wait()
	if got := counter(t, scrape(t, m), "chronos_claims_total", none); got != 800 {
		t.Errorf("chronos_claims_total = %g, want 800", got)
	}
}

// Deferred wakes count as their own outcome, and the breaker gauge follows opens and
// closes.
func TestDeferredAndBreakers(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.Deferred(ports.DeferredEndpointFull)
	m.Deferred(ports.DeferredEndpointFull)
	m.EndpointBreaker(true)
	m.EndpointBreaker(true)
	m.EndpointBreaker(false)
	fams := scrape(t, m)
	if got := counter(t, fams, "chronos_wakes_total", map[string]string{"outcome": "deferred"}); got != 2 {
		t.Errorf("deferred = %g, want 2", got)
	}
	if got := counter(t, fams, "chronos_endpoint_breaker_changes_total", map[string]string{"to": "open"}); got != 2 {
		t.Errorf("opened = %g, want 2", got)
	}
	if got := gauge(t, fams, "chronos_endpoint_breakers_open", none); got != 1 {
		t.Errorf("open now = %g, want 1", got)
	}
}

// A deferral counts once as the wake outcome "deferred" and once under its reason,
// the other reasons untouched.
func TestDeferredCountsTheOutcomeAndTheReason(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.Deferred(ports.DeferredOwnerCap)
	m.Deferred(ports.DeferredEndpointRate)
	m.Deferred(ports.DeferredOwnerCap)
	fams := scrape(t, m)
	if got := counter(t, fams, "chronos_wakes_total", map[string]string{"outcome": "deferred"}); got != 3 {
		t.Errorf("chronos_wakes_total{outcome=deferred} = %g, want 3", got)
	}
	want := map[string]float64{ports.DeferredOwnerCap: 2, ports.DeferredEndpointRate: 1, ports.DeferredEndpointFull: 0, ports.DeferredEndpointBreaker: 0}
	for reason, n := range want {
		if got := counter(t, fams, "chronos_wakes_deferred_total", map[string]string{"reason": reason}); got != n {
			t.Errorf("chronos_wakes_deferred_total{reason=%q} = %g, want %g", reason, got, n)
		}
	}
	if n := len(fams["chronos_wakes_deferred_total"].GetMetric()); n != len(deferReasons) {
		t.Errorf("chronos_wakes_deferred_total has %d series, want %d", n, len(deferReasons))
	}
}

// A refused wake counts under its address's class; every class reads 0 until then.
func TestEgressRefusedCountsByClass(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.EgressRefused(domain.EgressLoopback)
	m.EgressRefused(domain.EgressLinkLocal)
	m.EgressRefused(domain.EgressLoopback)
	fams := scrape(t, m)
	for _, class := range domain.EgressClasses {
		want := map[string]float64{domain.EgressLoopback: 2, domain.EgressLinkLocal: 1}[class]
		if got := counter(t, fams, "chronos_egress_refused_total", map[string]string{"class": class}); got != want {
			t.Errorf("chronos_egress_refused_total{class=%q} = %g, want %g", class, got, want)
		}
	}
}

// Each claim that returned alarms is one observation of how many owners it served; a
// claim that returned none is not observed.
func TestClaimOwnersObservesEachClaim(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.ClaimOwners(1)
	m.ClaimOwners(3)
	m.ClaimOwners(0)
	m.ClaimOwners(100)
	wantHistogram(t, scrape(t, m), "chronos_claim_owners", none, 3, 104, map[float64]uint64{1: 1, 2: 1, 4: 2, 64: 2, 128: 3})
}

// EndpointQueues sets both gauges to what it was last told.
func TestEndpointQueuesSetsBothGauges(t *testing.T) {
	m := metrics.New(metrics.Options{})
	fams := scrape(t, m)
	for _, name := range []string{"chronos_endpoints_queuing", "chronos_endpoint_queued_wakes"} {
		if got := gauge(t, fams, name, none); got != 0 {
			t.Errorf("%s = %g before any call, want 0", name, got)
		}
	}
	m.EndpointQueues(2, 7)
	fams = scrape(t, m)
	if got := gauge(t, fams, "chronos_endpoints_queuing", none); got != 2 {
		t.Errorf("chronos_endpoints_queuing = %g, want 2", got)
	}
	if got := gauge(t, fams, "chronos_endpoint_queued_wakes", none); got != 7 {
		t.Errorf("chronos_endpoint_queued_wakes = %g, want 7", got)
	}
	m.EndpointQueues(0, 0)
	fams = scrape(t, m)
	for _, name := range []string{"chronos_endpoints_queuing", "chronos_endpoint_queued_wakes"} {
		if got := gauge(t, fams, name, none); got != 0 {
			t.Errorf("%s = %g after the queues emptied, want 0", name, got)
		}
	}
}
