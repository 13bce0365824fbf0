package app

import (
	"time"

	"github.com/chronoshq/chronos/domain"
)

// StatsSource reports a node's dispatching counters since it started; the dispatcher
// is one (Dispatcher.WorkerStats). Only the totals and InFlight are read: the windows
// are the heartbeat's.
type StatsSource interface {
	WorkerStats() domain.WorkerStats
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
}

// fill records the totals of s at now and sets s's window fields.
func (w *statsWindows) fill(s *domain.WorkerStats, now time.Time) {
	w.samples = append(w.samples, statsSample{at: now, delivered: s.Delivered, failed: s.Failed})
	// Keep one sample at or before an hour ago, as the hour window's base.
	for len(w.samples) > 1 && !w.samples[1].at.After(now.Add(-time.Hour)) {
		w.samples = w.samples[1:]
	}
	s.Delivered1m, s.Failed1m = w.since(now.Add(-time.Minute), s)
	s.Delivered1h, s.Failed1h = w.since(now.Add(-time.Hour), s)
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
