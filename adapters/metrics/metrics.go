package metrics

import (
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Options configures New. The zero value works.
type Options struct {
	// Version is chronos_build_info's version label. Empty reads as "unknown".
	Version string
	// Logger, when non-nil, receives the errors of serving a scrape (a collector
	// failing, a client gone). Serving never panics either way.
	Logger *zap.Logger
}

// Metrics records chronos's measurements in its own Prometheus registry. Its methods
// are safe for concurrent use and cheap: a label lookup and atomic adds, or (for
// AlarmCounts) a short lock.
type Metrics struct {
	registry *prometheus.Registry
	handler  http.Handler

	delivered, failed, stale prometheus.Counter
	deferred                 prometheus.Counter
	deferredBy               *prometheus.CounterVec
	claimOwners              prometheus.Histogram
	queuingEndpoints         prometheus.Gauge
	queuedWakes              prometheus.Gauge
	breakerChanges           *prometheus.CounterVec
	breakersOpen             prometheus.Gauge
	egressRefused            *prometheus.CounterVec
	wakes                    *prometheus.CounterVec
	wakeLag                  prometheus.Histogram
	delivery                 prometheus.Histogram

	claims, claimed prometheus.Counter
	claimDuration   prometheus.Histogram
	nextDueReads    prometheus.Counter

	retentionDeleted *prometheus.CounterVec
	dispatchPaused   prometheus.Gauge
	sample           *sampleCollector

	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	refusals        *prometheus.CounterVec
}

var _ ports.Metrics = (*Metrics)(nil)

// Bucket bounds, in seconds. Wake lag spans a healthy node (milliseconds) to a
// backlog (minutes); a delivery is bounded by the delivery timeout (10 s by default,
// 30 s leaves room for a raised one); a claim is one indexed UPDATE, slow past a second.
var (
	wakeLagBuckets  = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}
	deliveryBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	claimBuckets    = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}
	requestBuckets  = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
)

// New returns a Metrics with a fresh registry holding chronos's metrics and the Go
// runtime and process collectors. Every fixed label value (outcomes, tables) is
// created up front, so it reads 0 before its first event rather than being absent.
func New(opts Options) *Metrics {
	version := opts.Version
	if version == "" {
		version = "unknown"
	}
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		wakes: counterVec("chronos_wakes_total", []string{"outcome"},
			"Wakes finished by this node, by outcome: delivered, failed (the attempt failed), stale (the outcome was refused by the lease fence), or deferred (held back, not sent: its endpoint full, over its rate or its breaker open)."),
		wakeLag: histogram("chronos_wake_lag_seconds", wakeLagBuckets,
			"Seconds from when a wake was due (its next_fire_at at the claim) to when it was delivered."),
		delivery: histogram("chronos_delivery_duration_seconds", deliveryBuckets,
			"Seconds one delivery attempt took, delivered or failed."),
		claims: counter("chronos_claims_total",
			"Successful ClaimDue calls made by this node, whether or not they claimed anything."),
		claimed: counter("chronos_claimed_total",
			"Alarms claimed by this node."),
		claimDuration: histogram("chronos_claim_duration_seconds", claimBuckets,
			"Seconds one successful ClaimDue call took."),
		nextDueReads: counter("chronos_next_due_reads_total",
			"NextDue reads this node's dispatcher made before sleeping: with chronos_claims_total, what an idle node asks of the store."),
		retentionDeleted: counterVec("chronos_retention_deleted_total", []string{"table"},
			"Rows deleted by retention on this node, by table."),
		dispatchPaused: gauge("chronos_dispatch_paused",
			"1 while the cluster-wide dispatch pause is on, as this node last read it; 0 otherwise."),
		sample: newSampleCollector(),
		breakerChanges: counterVec("chronos_endpoint_breaker_changes_total", []string{"to"},
			"Endpoint breakers this node opened or closed, by the state entered: open or closed."),
		deferredBy: counterVec("chronos_wakes_deferred_total", []string{"reason"},
			"Wakes this node held back, not sent, by reason: endpoint_full (max_in_flight reached and its queue full), endpoint_rate (over rate_per_second), endpoint_breaker (breaker open or its probe out), owner_cap (the owner at --owner-max-in-flight)."),
		claimOwners: histogram("chronos_claim_owners", []float64{1, 2, 4, 8, 16, 32, 64, 128},
			"Owners served by one claim that returned alarms: under one owner's backlog, more than 1 means the others were served beside it."),
		queuingEndpoints: gauge("chronos_endpoints_queuing",
			"Endpoints with wakes waiting on this node for room (max_in_flight or rate_per_second) now."),
		queuedWakes: gauge("chronos_endpoint_queued_wakes",
			"Wakes waiting on this node in an endpoint's queue for room now."),
		breakersOpen: gauge("chronos_endpoint_breakers_open",
			"Endpoints whose breaker is open on this node now."),
		egressRefused: counterVec("chronos_egress_refused_total", []string{"class"},
			"Wakes to an endpoint or a failure_url this node did not send because the egress policy refuses the address (--endpoint-allow-cidr), by the address's class: unspecified, loopback, private, link-local, CGNAT, multicast, reserved. Each is a failed attempt too."),
		requests: counterVec("chronos_api_requests_total", []string{"method", "route", "code"},
			"API requests answered by this node, by method, route template and status code."),
		requestDuration: histogramVec("chronos_api_request_duration_seconds", requestBuckets, []string{"method", "route"},
			"Seconds the API took to answer one request, by method and route template."),
		refusals: counterVec("chronos_refusals_total", []string{"reason"},
			"Requests this node refused before doing anything, by reason: quota_exceeded (a create over its owner's quota of active alarms) or rate_limited (a token over its request rate). A refused batch counts once."),
	}
	m.delivered = m.wakes.WithLabelValues(ports.WakeDelivered)
	m.failed = m.wakes.WithLabelValues(ports.WakeFailed)
	m.stale = m.wakes.WithLabelValues(wakeStale)
	m.deferred = m.wakes.WithLabelValues(wakeDeferred)
	for _, r := range []string{ports.DeferredEndpointFull, ports.DeferredEndpointRate, ports.DeferredEndpointBreaker, ports.DeferredOwnerCap} {
		m.deferredBy.WithLabelValues(r)
	}
	m.breakerChanges.WithLabelValues("open")
	m.breakerChanges.WithLabelValues("closed")
	for _, c := range domain.EgressClasses {
		m.egressRefused.WithLabelValues(c)
	}
	m.retentionDeleted.WithLabelValues("alarms")
	m.retentionDeleted.WithLabelValues("alarm_events")
	m.refusals.WithLabelValues(ports.RefusedQuota)
	m.refusals.WithLabelValues(ports.RefusedRate)

	buildInfo := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "chronos_build_info",
		Help:        "Always 1; the version label is the running chronos's version.",
		ConstLabels: prometheus.Labels{"version": version},
	})
	buildInfo.Set(1)

	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo,
		m.wakes, m.wakeLag, m.delivery,
		m.claims, m.claimed, m.claimDuration, m.nextDueReads,
		m.retentionDeleted, m.dispatchPaused, m.sample, m.breakerChanges, m.breakersOpen,
		m.deferredBy, m.claimOwners, m.queuingEndpoints, m.queuedWakes, m.egressRefused,
		m.requests, m.requestDuration, m.refusals,
	)
	m.handler = newHandler(m.registry, opts.Logger)
	return m
}

// The metrics' constructors: a name, buckets or labels where it has them, and its help.
func counter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}

func gauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
}

func histogram(name string, buckets []float64, help string) prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
}

func counterVec(name string, labels []string, help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

func histogramVec(name string, buckets []float64, labels []string, help string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
}

// wakeStale is the third outcome of chronos_wakes_total, counted by Stale.
const (
	wakeStale    = "stale"
	wakeDeferred = "deferred"
)

// NextDueRead implements ports.Metrics.
func (m *Metrics) NextDueRead() { m.nextDueReads.Inc() }

// Claimed implements ports.Metrics.
func (m *Metrics) Claimed(n int, took time.Duration) {
	m.claims.Inc()
	if n > 0 {
		m.claimed.Add(float64(n))
	}
	m.claimDuration.Observe(took.Seconds())
}

// Woke implements ports.Metrics. A negative lag (the node's clock behind the store's)
// is recorded as 0: a histogram's _sum is read as a counter, and a decrease would look
// like a reset to rate().
func (m *Metrics) Woke(outcome string, lag, took time.Duration) {
	switch outcome {
	case ports.WakeDelivered:
		m.delivered.Inc()
	case ports.WakeFailed:
		m.failed.Inc()
	default:
		m.wakes.WithLabelValues(validUTF8(outcome)).Inc()
	}
	m.wakeLag.Observe(max(lag, 0).Seconds())
	m.delivery.Observe(took.Seconds())
}

// Deferred implements ports.Metrics.
func (m *Metrics) Deferred(reason string) {
	m.deferred.Inc()
	m.deferredBy.WithLabelValues(validUTF8(reason)).Inc()
}

// ClaimOwners implements ports.Metrics.
func (m *Metrics) ClaimOwners(n int) {
	if n > 0 {
		m.claimOwners.Observe(float64(n))
	}
}

// EndpointQueues implements ports.Metrics.
func (m *Metrics) EndpointQueues(endpoints, wakes int) {
	m.queuingEndpoints.Set(float64(endpoints))
	m.queuedWakes.Set(float64(wakes))
}

// EndpointBreaker implements ports.Metrics.
func (m *Metrics) EndpointBreaker(open bool) {
	if open {
		m.breakerChanges.WithLabelValues("open").Inc()
		m.breakersOpen.Inc()
		return
	}
	m.breakerChanges.WithLabelValues("closed").Inc()
	m.breakersOpen.Dec()
}

// EgressRefused implements ports.Metrics.
func (m *Metrics) EgressRefused(class string) {
	m.egressRefused.WithLabelValues(validUTF8(class)).Inc()
}

// Stale implements ports.Metrics.
func (m *Metrics) Stale(n int) {
	if n > 0 {
		m.stale.Add(float64(n))
	}
}

// RetentionDeleted implements ports.Metrics.
func (m *Metrics) RetentionDeleted(table string, n int) {
	if n > 0 {
		m.retentionDeleted.WithLabelValues(validUTF8(table)).Add(float64(n))
	}
}

// DispatchPaused implements ports.Metrics.
func (m *Metrics) DispatchPaused(paused bool) {
	if paused {
		m.dispatchPaused.Set(1)
	} else {
		m.dispatchPaused.Set(0)
	}
}

// AlarmCounts implements ports.Metrics: with ok, the sample replaces the last one;
// without, the sampled gauges leave this node's output until the next sample.
func (m *Metrics) AlarmCounts(c ports.AlarmCounts, ok bool) {
	if ok {
		m.sample.set(c)
	} else {
		m.sample.clear()
	}
}

// Request implements ports.Metrics.
func (m *Metrics) Request(method, route string, code int, took time.Duration) {
	method, route = knownMethod(method), validUTF8(route)
	m.requests.WithLabelValues(method, route, strconv.Itoa(code)).Inc()
	m.requestDuration.WithLabelValues(method, route).Observe(took.Seconds())
}

// Refused implements ports.Metrics.
func (m *Metrics) Refused(reason string) { m.refusals.WithLabelValues(validUTF8(reason)).Inc() }

// knownMethod returns method when it is one of net/http's, else "other": net/http
// accepts any token as a method, and a client must not be able to mint label values.
func knownMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "other"
}

// validUTF8 returns s, with any invalid UTF-8 replaced: client_golang panics on a label
// value that is not UTF-8, and a measurement must never take the node down.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
