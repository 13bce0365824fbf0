package bench

import (
	"math"
	"testing"
	"time"
)

// The fairness report's arithmetic: the drain rate runs from the burst's due instant to
// its last wake, and each quiet wake counts before, during or after the burst.
func TestMeasureFairness(t *testing.T) {
	due := time.Unix(1_000, 0)
	at := func(d time.Duration) int64 { return due.Add(d).UnixNano() }
	log := OwnerLogData{
		Burst:     3000,
		BurstLast: at(1500 * time.Millisecond),
		Quiet: [][2]int64{
			{at(-time.Second), at(-time.Second + 2*time.Millisecond)},                           // before: 2 ms
			{at(-10 * time.Millisecond), at(-6 * time.Millisecond)},                             // before: 4 ms
			{at(-5 * time.Millisecond), at(95 * time.Millisecond)},                              // due before, waited into the burst: during, 100 ms
			{at(0), at(10 * time.Millisecond)},                                                  // during: 10 ms
			{at(500 * time.Millisecond), at(520 * time.Millisecond)},                            // during: 20 ms
			{at(1500 * time.Millisecond), at(1800 * time.Millisecond)},                          // due at the last wake: during, 300 ms
			{at(1500*time.Millisecond + 1), at(1500*time.Millisecond + 1 + 3*time.Millisecond)}, // after: 3 ms
		},
	}
	f := measureFairness(log, due)
	if f.Burst != 3000 || f.BurstDrainMs != 1500 || math.Abs(f.BurstPerSec-2000) > 1e-9 {
		t.Errorf("burst %d drained in %v ms at %v/s; want 3000 in 1500 ms at 2000/s", f.Burst, f.BurstDrainMs, f.BurstPerSec)
	}
	for _, c := range []struct {
		name      string
		got       lagSummary
		count     uint64
		p50, max_ float64
	}{
		{"before", f.QuietBefore, 2, 2, 4},
		{"during", f.QuietDuring, 4, 20, 300},
		{"after", f.QuietAfter, 1, 3, 3},
	} {
		if c.got.Count != c.count || c.got.MaxMs != c.max_ || math.Abs(c.got.P50Ms-c.p50) > c.p50/32 || c.got.P99Ms != c.max_ {
			t.Errorf("%s: %+v; want %d wakes, p50 %v ms (within 3%%), p99 and max %v ms", c.name, c.got, c.count, c.p50, c.max_)
		}
	}
}

// Without a burst wake (a run that failed) there is no drain rate, and nothing is
// during.
func TestMeasureFairnessWithoutBurst(t *testing.T) {
	due := time.Unix(1_000, 0)
	f := measureFairness(OwnerLogData{Quiet: [][2]int64{{due.UnixNano(), due.UnixNano() + 1e6}}}, due)
	if f.BurstPerSec != 0 || f.BurstDrainMs != 0 || f.QuietDuring.Count != 0 || f.QuietAfter.Count != 1 {
		t.Errorf("%+v", f)
	}
}

// The trickle makes the quiet owners' alarms in turn at even intervals, each once,
// --lead ahead, and ends with the alarm due at stopAt's time.
func TestQuietTrickle(t *testing.T) {
	first := time.Unix(1_000, 0)
	q := &quietTrickle{owners: QuietOwners(3), rate: 4, first: first, lead: time.Second}
	specs, done, err := q.next(first.Add(-time.Second+600*time.Millisecond), 0, 0) // horizon first+600ms
	if err != nil || done || len(specs) != 3 {
		t.Fatalf("first tick: %d specs, done %v, %v; want 3 (due at +0, +250, +500 ms)", len(specs), done, err)
	}
	for i, s := range specs {
		if want := first.Add(time.Duration(i) * 250 * time.Millisecond); !s.FireAt.Equal(want) || s.Owner != QuietOwners(3)[i] {
			t.Errorf("spec %d: %s due %s; want %s due %s", i, s.Owner, s.FireAt, QuietOwners(3)[i], want)
		}
	}
	q.stopAt(first.Add(time.Second))
	specs, done, _ = q.next(first.Add(5*time.Second), 0, 3)
	if !done || len(specs) != 2 || specs[0].Owner != "tenant-q01" || !specs[1].FireAt.Equal(first.Add(time.Second)) {
		t.Errorf("last tick: %d specs, done %v; want the alarms due at +750 ms (tenant-q01) and +1 s, then done", len(specs), done)
	}
}
