//go:build e2e

package e2e

import (
	"fmt"
	"sort"
	"testing"
	"time"
)

// skew is what each node's clock is off by in the clock-skew scenario.
var skews = []time.Duration{0, 30 * time.Second, -30 * time.Second}

// TestFaultClockSkew is scenario 5: three nodes on one database whose process clocks
// are 0, +30 s and -30 s off (CHRONOS_TEST_CLOCK_OFFSET, a test-only setting). On
// PostgreSQL and MySQL due-ness and leases follow the database's clock, so no wake
// arrives before its scheduled time, none twice, a delay given to a skewed node is
// counted from the database's now, and a cron series keeps its rhythm whichever node
// fires it. The SQLite control shows the skew is real: there the process clock rules.
func TestFaultClockSkew(t *testing.T) {
	for _, kind := range []storeKind{onPostgres, onMySQL} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			runClockSkew(t, kind)
		})
	}
	t.Run("sqlite-control", func(t *testing.T) {
		t.Parallel()
		clockSkewControl(t)
	})
}

func runClockSkew(t *testing.T, kind storeKind) {
	store := newStoreURL(t, kind)
	recv := NewReceiver(t, e2eSecret)
	token := CreateToken(t, store, "e2e")
	nodes := make([]*Node, len(skews))
	for i, s := range skews {
		name := string(rune('a' + i))
		nodes[i] = StartNode(t, name, NodeConfig{Store: store, WakeURL: recv.URL + "/" + name, Secret: e2eSecret,
			Extra: faultFlags(), Env: []string{fmt.Sprintf("%s=%s", "CHRONOS_TEST_CLOCK_OFFSET", s)}})
	}
	c := NewClient(t, token)

	// Once alarms half by absolute fire_at (the test's clock, which is the database's:
	// both run on this machine), half by delay_seconds counted by the receiving node.
	var specs []Spec
	start := time.Now().Add(2 * time.Second)
	for i := range 300 {
		s := Spec{Kind: "once", Delivery: []string{atLeastOnce, atMostOnce}[i%2]}
		if i%4 < 2 {
			s.FireAt = start.Add(time.Duration(i) * 8 * time.Second / 300)
		} else {
			s.Delay = 2*time.Second + time.Duration(i)*8*time.Second/300
		}
		specs = append(specs, s)
	}
	for i := range 12 {
		specs = append(specs, Spec{Kind: "cron", Delivery: []string{atLeastOnce, atMostOnce}[i%2], Every: 2 * time.Second})
	}
	before := time.Now()
	created := CreateAll(t, c, nodes, specs)
	after := time.Now()

	misplaced := 0
	for i, a := range created {
		if specs[i].Kind != "once" || !specs[i].FireAt.IsZero() {
			continue
		}
		lo, hi := before.Add(specs[i].Delay-time.Second), after.Add(specs[i].Delay+time.Second)
		if a.FireAt.Before(lo) || a.FireAt.After(hi) {
			if misplaced++; misplaced > 5 {
				continue
			}
			t.Errorf("alarm created on node %s (clock %s) with delay %s has fire_at %s, want between %s and %s (the database's now plus the delay)",
				nodes[i%len(nodes)].Name, skews[i%len(nodes)], specs[i].Delay, a.FireAt.Format(time.RFC3339Nano),
				lo.Format(time.RFC3339Nano), hi.Format(time.RFC3339Nano))
		}
	}

	in := OpenInspector(t, kind, store, "e2e")
	WaitOnceAlarmsFinished(t, in, 60*time.Second)
	time.Sleep(4 * time.Second) // a few more cron occurrences, by every node
	fig := Figures{Scenario: "clock skew", Store: string(kind)}
	fig.Stuck = CountStuck(t, in, faultLease, faultGrace)
	faults := stopAll(t, nodes)
	got := recv.Deliveries()

	early, byNode := 0, map[string]int{}
	series := map[string][]time.Time{}
	for _, d := range got {
		byNode[d.Via]++
		// scheduled_for is stored at millisecond (or finer) precision, truncated: it
		// is never after the true due time, so any arrival before it is early.
		if d.Arrived.Before(d.ScheduledFor) {
			early++
			if early <= 5 {
				t.Errorf("wake %s arrived via node %s %s before its scheduled time", d.OccurrenceKey, d.Via, d.ScheduledFor.Sub(d.Arrived))
			}
		}
		series[d.AlarmID] = append(series[d.AlarmID], d.ScheduledFor)
	}
	for i, s := range skews {
		name := nodes[i].Name
		t.Logf("node %s (clock %+v) delivered %d wakes", name, s, byNode[name])
		if byNode[name] == 0 {
			t.Errorf("node %s (clock %s) delivered nothing: the scenario did not exercise it", name, s)
		}
	}
	for i, a := range created {
		if specs[i].Kind != "cron" {
			continue
		}
		occ := series[a.ID]
		sort.Slice(occ, func(i, j int) bool { return occ[i].Before(occ[j]) })
		for j := 1; j < len(occ); j++ {
			if gap := occ[j].Sub(occ[j-1]); gap < time.Second || gap > 5*time.Second {
				t.Errorf("cron series %s (@every 2s, %s): occurrence %s follows %s after %s, want 2-3s: a skewed node computed its next occurrence off its own clock",
					a.ID, specs[i].Delivery, occ[j].Format(time.RFC3339), occ[j-1].Format(time.RFC3339), gap)
				break
			}
		}
	}
	final, events := readFinal(in, created)
	fig = Verify(t, fig, final, events, got, faults, false)
	if fig.DupAtLeastOnce > 0 {
		t.Errorf("%d at-least-once occurrences delivered twice with no fault at all", fig.DupAtLeastOnce)
	}
	t.Logf("clock skew on %s: %d wakes, %d early", kind, len(got), early)
}

// clockSkewControl: on SQLite the process clock is the store's clock, so a node 30 s
// ahead fires an alarm due in 20 s at once. Without this, a broken injection would let
// the database-clock scenario pass for the wrong reason.
func clockSkewControl(t *testing.T) {
	store := newStoreURL(t, onSQLite)
	recv := NewReceiver(t, e2eSecret)
	token := CreateToken(t, store, "e2e")
	node := StartNode(t, "ahead", NodeConfig{Store: store, WakeURL: recv.URL, Secret: e2eSecret,
		Extra: faultFlags(), Env: []string{"CHRONOS_TEST_CLOCK_OFFSET=30s"}})
	c := NewClient(t, token)
	due := time.Now().Add(20 * time.Second).UTC()
	a := c.Create(node, fmt.Sprintf(`{"kind": "once", "fire_at": %q}`, due.Format(time.RFC3339Nano)))
	d := waitAcked(t, recv, a.ID, 5*time.Second)
	t.Logf("SQLite node 30s ahead delivered an alarm due in 20s %s early", due.Sub(d.Arrived).Round(time.Millisecond))
}
