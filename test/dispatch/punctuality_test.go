package dispatch_test

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// With serve's one-second tick, alarms created one after another, each due shortly
// after its create, arrive on time: every create hints the sleeping loop, and a later
// hint must never push back the wake-up an earlier one (or the next due alarm) asked
// for. A loop that re-armed its timer on every hint woke only when the creates stopped,
// seconds late.
func TestTrickleOfSoonDueAlarmsArrivesOnTime(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, nil)
	cfg := testConfig("w1")
	cfg.Tick = time.Second // serve's default: the hints, not the tick, must keep time
	e.start(t, e.waker(t, r), cfg)

	delays := []time.Duration{150 * time.Millisecond, 600 * time.Millisecond, 300 * time.Millisecond}
	const n = 30
	for i := range n {
		e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(delays[i%len(delays)])})
		time.Sleep(50 * time.Millisecond)
	}
	eventually(t, 5*time.Second, "every wake", func() bool { return len(r.received()) >= n })

	// The bound is loose for a busy CI machine; the loop this guards against was late
	// by about as long as the creates went on (1.5 s here).
	const bound = 400 * time.Millisecond
	late := 0
	var worst time.Duration
	for _, w := range r.received() {
		lag := w.At.Sub(w.ScheduledFor)
		worst = max(worst, lag)
		if lag > bound {
			late++
		}
	}
	if late > 0 {
		t.Errorf("%d of %d wakes arrived more than %s after their scheduled_for (worst %s)", late, n, bound, worst)
	}
}

// A node with nothing due asks the store one thing a tick: the next due time, or, on
// every few ticks, a claim that finds leases run out. Punctuality comes from the hints
// and the next due time, not from polling harder.
func TestIdleNodeMakesOneStoreCallATick(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, nil)
	cfg := testConfig("w1")
	cfg.Tick = 50 * time.Millisecond
	d, _ := e.start(t, e.waker(t, r), cfg)

	time.Sleep(200 * time.Millisecond) // past the first claim and read
	before := d.Stats()
	const window = 1500 * time.Millisecond
	time.Sleep(window)
	after := d.Stats()
	calls := (after.Claims - before.Claims) + (after.NextDueReads - before.NextDueReads)
	ticks := int64(window / cfg.Tick)
	if calls > ticks+3 {
		t.Errorf("an idle node made %d claims and next-due reads in %s, want at most one a tick (%d)", calls, window, ticks)
	}
	if after.Claims == before.Claims {
		t.Errorf("an idle node made no claim in %s: expired leases would never be found", window)
	}
}

// A series' next occurrence, written by the apply of the one before, wakes the loop
// that applied it: the loop's last read of the next due time ran while the series was
// leased (left out of the read), so without a hint it would sleep the whole tick.
func TestSeriesOccurrencesArriveOnTimeWithALongTick(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, nil)
	cfg := testConfig("w1")
	cfg.Tick = 3 * time.Second
	e.start(t, e.waker(t, r), cfg)

	e.create(t, domain.Spec{Kind: domain.KindCron, CronExpr: "@every 1s", Timezone: "UTC"})
	eventually(t, 10*time.Second, "four occurrences", func() bool { return len(r.received()) >= 4 })
	for i, w := range r.received()[:4] {
		if lag := w.At.Sub(w.ScheduledFor); lag > 500*time.Millisecond {
			t.Errorf("occurrence %d (%s) arrived %s late", i+1, w.ScheduledFor.Format(time.RFC3339Nano), lag)
		}
	}
}
