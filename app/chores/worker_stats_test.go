package chores

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/app/internal/wakelag"
	"github.com/chronoshq/chronos/domain"
)

// The windows are the growth of the totals since the last beat at or before the
// window's start; a node younger than a window counts everything since it started.
func TestStatsWindows(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var w statsWindows
	beat := func(at time.Duration, delivered, failed int64) domain.WorkerStats {
		s := domain.WorkerStats{Delivered: delivered, Failed: failed}
		w.fill(&s, nil, t0.Add(at))
		return s
	}
	if s := beat(0, 5, 1); s.Delivered1m != 5 || s.Failed1m != 1 || s.Delivered1h != 5 {
		t.Errorf("first beat: %+v, want everything since start", s)
	}
	beat(30*time.Second, 10, 1)
	if s := beat(60*time.Second, 25, 3); s.Delivered1m != 20 || s.Failed1m != 2 || s.Delivered1h != 25 {
		t.Errorf("a minute in: %+v, want 20 delivered and 2 failed since the beat a minute ago, 25 in the hour", s)
	}
	if s := beat(90*time.Second, 25, 3); s.Delivered1m != 15 || s.Failed1m != 2 {
		t.Errorf("90 s in, nothing new: %+v, want the growth since the 30 s beat", s)
	}
	for i := 2; i <= 70; i++ { // a beat a minute, 10 wakes each, for 70 minutes
		beat(time.Duration(i)*time.Minute, 25+int64(i-1)*10, 3)
	}
	s := beat(71*time.Minute, 25+70*10, 3)
	if s.Delivered1m != 10 || s.Delivered1h != 600 || s.Failed1h != 0 {
		t.Errorf("after 71 minutes: %+v, want 10 in the last minute and 600 in the last hour", s)
	}
	if len(w.samples) > 62 {
		t.Errorf("the windows keep %d samples; they must forget what is older than an hour", len(w.samples))
	}
}

// The lag percentiles cover the last minute's wakes, to the upper bound of their bucket.
func TestStatsWindowsLag(t *testing.T) {
	var h wakelag.Histogram
	var w statsWindows
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 1000 {
		h.Observe(2 * time.Second) // old, slow wakes: out of the window below
	}
	var s domain.WorkerStats
	w.fill(&s, h.Snapshot(), t0)
	for i := range 100 {
		if i == 99 {
			h.Observe(300 * time.Millisecond)
		} else {
			h.Observe(3 * time.Millisecond)
		}
	}
	s = domain.WorkerStats{}
	w.fill(&s, h.Snapshot(), t0.Add(90*time.Second))
	if s.LagP50Ms != 4 || s.LagP99Ms != 4 {
		t.Errorf("p50 %v ms, p99 %v ms; want both in the 2-4 ms bucket (99 of 100 wakes there)", s.LagP50Ms, s.LagP99Ms)
	}
	h.Observe(300 * time.Millisecond)
	h.Observe(300 * time.Millisecond)
	s = domain.WorkerStats{}
	w.fill(&s, h.Snapshot(), t0.Add(100*time.Second))
	if s.LagP99Ms != 512 {
		t.Errorf("p99 %v ms, want the 256-512 ms bucket's bound once 3 of 102 wakes were that late", s.LagP99Ms)
	}
}
