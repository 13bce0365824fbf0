package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// sampleCollector exposes the last AlarmCounts sample, and nothing while it holds
// none. Plain gauges cannot do that: once set, a gauge is exported until the process
// ends, so a node that stopped sampling would go on reporting a stale backlog beside
// the node that took over, and a sum over the cluster would count it twice.
type sampleCollector struct {
	dueDesc, lagDesc, alarmsDesc *prometheus.Desc

	mu       sync.Mutex
	held     bool
	due      int64
	lag      float64 // seconds, at the sample's own Now
	byStatus []int64 // parallel to domain.Statuses
}

func newSampleCollector() *sampleCollector {
	return &sampleCollector{
		dueDesc: prometheus.NewDesc("chronos_due_backlog",
			"Alarms due and not held by a live lease, at the last sample (reported only by the node that samples).",
			nil, nil),
		lagDesc: prometheus.NewDesc("chronos_oldest_due_lag_seconds",
			"Seconds the oldest due alarm had been waiting at the last sample, 0 when none is due (reported only by the node that samples).",
			nil, nil),
		alarmsDesc: prometheus.NewDesc("chronos_alarms",
			"Alarms by status at the last sample (reported only by the node that samples).",
			[]string{"status"}, nil),
		byStatus: make([]int64, len(domain.Statuses)),
	}
}

// set keeps c. It copies what it needs, so the caller may reuse c.ByStatus. A status
// missing from c.ByStatus reads 0; one outside domain.Statuses is not exported.
func (s *sampleCollector) set(c ports.AlarmCounts) {
	// Measured at the store's own now, so the node's clock does not enter into it.
	lag := 0.0
	if c.Due > 0 && !c.OldestDue.IsZero() {
		lag = max(c.Now.Sub(c.OldestDue).Seconds(), 0)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = true
	s.due = c.Due
	s.lag = lag
	for i, st := range domain.Statuses {
		s.byStatus[i] = c.ByStatus[st]
	}
}

func (s *sampleCollector) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = false
}

// Describe implements prometheus.Collector.
func (s *sampleCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- s.dueDesc
	ch <- s.lagDesc
	ch <- s.alarmsDesc
}

// Collect implements prometheus.Collector.
func (s *sampleCollector) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	if !s.held {
		s.mu.Unlock()
		return
	}
	due, lag := s.due, s.lag
	byStatus := append([]int64(nil), s.byStatus...)
	s.mu.Unlock()

	ch <- prometheus.MustNewConstMetric(s.dueDesc, prometheus.GaugeValue, float64(due))
	ch <- prometheus.MustNewConstMetric(s.lagDesc, prometheus.GaugeValue, lag)
	for i, st := range domain.Statuses {
		ch <- prometheus.MustNewConstMetric(s.alarmsDesc, prometheus.GaugeValue, float64(byStatus[i]), string(st))
	}
}
