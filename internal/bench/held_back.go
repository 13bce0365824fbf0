package bench

import (
	"maps"
	"sync"

	"github.com/chronoshq/chronos/ports"
)

// heldBackMetrics is a node's ports.Metrics for what the dispatcher's counters do not
// tell apart: the wakes held back by reason (an endpoint's room, rate or breaker, an
// owner's cap), the most wakes waiting in the endpoints' queues at once, and the
// breakers opened. Everything else is discarded.
type heldBackMetrics struct {
	ports.NopMetrics

	mu      sync.Mutex
	figures endpointFigures
}

// endpointFigures is what heldBackMetrics counted, as a node reports it.
type endpointFigures struct {
	// HeldBack counts wakes held back by reason (ports.Deferred*).
	HeldBack     map[string]int64 `json:"held_back,omitempty"`
	PeakQueued   int              `json:"peak_queued"`
	BreakerOpens int64            `json:"breaker_opens"`
}

func newHeldBackMetrics() *heldBackMetrics {
	return &heldBackMetrics{figures: endpointFigures{HeldBack: map[string]int64{}}}
}

func (m *heldBackMetrics) Deferred(reason string) {
	m.mu.Lock()
	m.figures.HeldBack[reason]++
	m.mu.Unlock()
}

func (m *heldBackMetrics) EndpointQueues(_, wakes int) {
	m.mu.Lock()
	m.figures.PeakQueued = max(m.figures.PeakQueued, wakes)
	m.mu.Unlock()
}

func (m *heldBackMetrics) EndpointBreaker(open bool) {
	if !open {
		return
	}
	m.mu.Lock()
	m.figures.BreakerOpens++
	m.mu.Unlock()
}

func (m *heldBackMetrics) snapshot() endpointFigures {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.figures
	f.HeldBack = maps.Clone(f.HeldBack)
	return f
}

// merge adds another node's figures: counts add up, and the peak is the highest of
// any node's (each node has queues of its own).
func (f *endpointFigures) merge(o endpointFigures) {
	if f.HeldBack == nil {
		f.HeldBack = map[string]int64{}
	}
	for reason, n := range o.HeldBack {
		f.HeldBack[reason] += n
	}
	f.PeakQueued = max(f.PeakQueued, o.PeakQueued)
	f.BreakerOpens += o.BreakerOpens
}
