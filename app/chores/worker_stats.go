package chores

import (
	"time"

	"github.com/chronoshq/chronos/app/internal/wakelag"
	"github.com/chronoshq/chronos/domain"
)

// StatsSource reports a node's dispatching counters since it started; the dispatcher
// is one (Dispatcher.WorkerStats). Only the totals and InFlight are read: the windows
// are the heartbeat's. LagCounts is the cumulative wake lag histogram (wakelag.Histogram).
type StatsSource interface {
	WorkerStats() domain.WorkerStats
	LagCounts() []int64
}

// statsWindows turns running totals into "in the last minute / hour" by remembering the
// totals at each heartbeat: the count over a window is the total now minus the total at
// the oldest beat inside the window. Precise to a heartbeat interval, and free on the
// hot path (the dispatcher only increments its atomics).
type statsWindows struct {
	samples []statsSample // oldest first, covering at most the last hour
}

type statsSample struct {
	at                time.Time
	delivered, failed int64
	lag               []int64 // cumulative lag histogram
}

// fill records the totals of s and the lag histogram at now and sets s's window fields.
func (w *statsWindows) fill(s *domain.WorkerStats, lag []int64, now time.Time) {
	w.samples = append(w.samples, statsSample{at: now, delivered: s.Delivered, failed: s.Failed, lag: lag})
	// Keep one sample at or before an hour ago, as the hour window's base.
	for len(w.samples) > 1 && !w.samples[1].at.After(now.Add(-time.Hour)) {
		w.samples = w.samples[1:]
	}
	s.Delivered1m, s.Failed1m = w.since(now.Add(-time.Minute), s)
	s.Delivered1h, s.Failed1h = w.since(now.Add(-time.Hour), s)
	minute := w.lagSince(now.Add(-time.Minute), lag)
	s.LagP50Ms = float64(wakelag.Quantile(minute, 0.50)) / float64(time.Millisecond)
	s.LagP99Ms = float64(wakelag.Quantile(minute, 0.99)) / float64(time.Millisecond)
}

// lagSince is the lag histogram's growth since the base sample of since's window.
func (w *statsWindows) lagSince(from time.Time, now []int64) []int64 {
	var base []int64
	for _, x := range w.samples {
		if x.at.After(from) {
			break
		}
		base = x.lag
	}
	out := append([]int64(nil), now...)
	for i := range out {
		if i < len(base) {
			out[i] -= base[i]
		}
	}
	return out
}

// since is the growth of the totals from the last sample at or before from (or the
// oldest sample, when the node is younger than the window: it counts since start).
func (w *statsWindows) since(from time.Time, s *domain.WorkerStats) (delivered, failed int64) {
	base := statsSample{} // a node younger than the window: everything since it started
	for _, x := range w.samples {
		if x.at.After(from) {
			break
		}
		base = x
	}
	return s.Delivered - base.delivered, s.Failed - base.failed
}
