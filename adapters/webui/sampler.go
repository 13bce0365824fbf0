package webui

import (
	"context"
	"sync"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// The overview's charts: a point every SampleInterval, SamplePoints of them (15 min).
const (
	SampleInterval = 10 * time.Second
	SamplePoints   = 90
)

// Point is the cluster at one sample: wakes per second delivered and failed (summed over
// the live nodes) and the worst node's lag percentiles over its last minute.
type Point struct {
	At                time.Time
	Delivered, Failed float64 // per second
	LagP50, LagP99    float64 // milliseconds
}

type workerLister interface {
	Workers(ctx context.Context) ([]domain.WorkerHealth, error)
}

// Sampler samples the workers' heartbeats into the charts' points. Rates come from each
// node's running totals between two of its heartbeats, so they are exact over the
// heartbeat interval whatever the sampling rhythm; a node that restarted (its totals
// went back) starts over. The points live in this process: a dashboard node that
// restarts shows its charts filling up again.
type Sampler struct {
	workers  workerLister
	interval time.Duration
	size     int

	mu     sync.Mutex
	points []Point
	marks  map[string]mark
}

// mark is what the last sample saw of one node.
type mark struct {
	beat              time.Time
	delivered, failed int64
	rate, failRate    float64
}

// NewSampler builds the sampler.
func NewSampler(workers workerLister, interval time.Duration, size int) *Sampler {
	return &Sampler{workers: workers, interval: interval, size: size, marks: map[string]mark{}}
}

// Run samples every interval until ctx is done; a failed sample is skipped.
func (s *Sampler) Run(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		_ = s.SampleOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// SampleOnce adds one point.
func (s *Sampler) SampleOnce(ctx context.Context) error {
	ws, err := s.workers.Workers(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := Point{At: time.Now()}
	seen := map[string]mark{}
	for _, w := range ws {
		m := s.next(w)
		seen[w.ID] = m
		if !w.Alive {
			continue
		}
		p.Delivered += m.rate
		p.Failed += m.failRate
		p.LagP50 = max(p.LagP50, w.Stats.LagP50Ms)
		p.LagP99 = max(p.LagP99, w.Stats.LagP99Ms)
	}
	s.marks = seen
	s.points = append(s.points, p)
	if len(s.points) > s.size {
		s.points = s.points[len(s.points)-s.size:]
	}
	return nil
}

// next is the node's mark after this sample.
func (s *Sampler) next(w domain.WorkerHealth) mark {
	cur := mark{beat: w.HeartbeatAt, delivered: w.Stats.Delivered, failed: w.Stats.Failed}
	prev, ok := s.marks[w.ID]
	switch {
	case !ok:
		return cur // first sight: no rate yet
	case !w.HeartbeatAt.After(prev.beat):
		return prev // no new heartbeat: the last rate stands
	case cur.delivered < prev.delivered || cur.failed < prev.failed:
		return cur // the node restarted under the same id: start over
	}
	secs := w.HeartbeatAt.Sub(prev.beat).Seconds()
	cur.rate = float64(cur.delivered-prev.delivered) / secs
	cur.failRate = float64(cur.failed-prev.failed) / secs
	return cur
}

// Points returns the samples, oldest first.
func (s *Sampler) Points() []Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Point(nil), s.points...)
}

// NodeRate is one node's wakes per second, delivered and failed, at the last sample.
func (s *Sampler) NodeRate(id string) (delivered, failed float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.marks[id]
	return m.rate, m.failRate
}
