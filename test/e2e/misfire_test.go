//go:build e2e

package e2e

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// misfireThreshold is the nodes' --misfire-threshold: short, so that a freeze of a few
// seconds makes occurrences missed.
const misfireThreshold = 1500 * time.Millisecond

// TestMisfirePoliciesAcrossAFrozenNode runs one "@every 1s" series per misfire policy,
// freezes the node (SIGSTOP) for 6.25 s, thaws it, and reads what the receiver got and
// what each series' history says it dropped:
//   - every series: no occurrence delivered twice, and the delivered occurrences plus
//     the ones its missed events name are exactly every occurrence from its first to
//     its last, each counted once;
//   - catch_up: nothing dropped; the missed occurrences arrive after the thaw, oldest
//     first, each with its own occurrence key;
//   - skip: a gap of missed occurrences, none of them delivered late;
//   - fire_once: one late wake (the oldest missed occurrence), then the gap.
func TestMisfirePoliciesAcrossAFrozenNode(t *testing.T) {
	for _, kind := range []storeKind{onSQLite, onPostgres, onMySQL} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			runMisfire(t, kind)
		})
	}
}

func runMisfire(t *testing.T, kind storeKind) {
	store := newStoreURL(t, kind)
	recv := NewReceiver(t, e2eSecret)
	token := CreateToken(t, store, "e2e")
	node := StartNode(t, "n1", NodeConfig{Store: store, WakeURL: recv.URL, Secret: e2eSecret,
		Extra: faultFlags("--misfire-threshold", misfireThreshold.String())})
	c := NewClient(t, token)

	policies := []string{"fire_once", "skip", "catch_up"}
	ids := map[string]string{}
	// Every series starts at one whole second (an "@every" series runs from its
	// start_at), so all occurrences fall on whole seconds and the freeze, the thaw and
	// the node's misfire cut-off can be placed a quarter second or more away from any
	// of them: no count below depends on a few milliseconds of scheduling.
	start := time.Now().Truncate(time.Second).Add(2 * time.Second)
	for _, p := range policies {
		a := c.Create(node, fmt.Sprintf(`{"kind":"cron","cron_expr":"@every 1s","misfire":%q,"start_at":%q}`,
			p, start.UTC().Format(time.RFC3339)))
		ids[p] = a.ID
	}
	// Freeze half a second after an occurrence (its wake is long delivered), for 6.25 s:
	// the thaw falls at .750, so the cut-off the node applies right after it
	// (thaw − threshold = .250) is a quarter second from the occurrences either side.
	// The occurrence at thaw − 1.75 s is missed; the one at thaw − 0.75 s is missed only
	// if the node takes over 0.75 s to claim it, which a loaded machine does not.
	frozeAt := start.Add(3*time.Second + 500*time.Millisecond)
	time.Sleep(time.Until(frozeAt))
	node.Freeze()
	thawedAt := frozeAt.Add(6*time.Second + 250*time.Millisecond)
	time.Sleep(time.Until(thawedAt))
	thawedAt = time.Now() // before SIGCONT: every wake the thawed node sends arrives after it
	node.Thaw()
	time.Sleep(4 * time.Second)
	t.Logf("froze %s, thawed %s later", frozeAt.Format(time.StampMilli), thawedAt.Sub(frozeAt).Round(time.Millisecond))
	if d := thawedAt.Sub(frozeAt) - 6250*time.Millisecond; d > 200*time.Millisecond {
		t.Fatalf("the test thawed the node %s late; the phases below need it within 200 ms", d)
	}

	// The occurrences due during the freeze that the thawed node finds missed: whole
	// seconds after frozeAt and before thawedAt − threshold (5 of them).
	missedInFreeze := 0
	for o := frozeAt.Truncate(time.Second).Add(time.Second); o.Before(thawedAt.Add(-misfireThreshold)); o = o.Add(time.Second) {
		missedInFreeze++
	}
	for _, p := range policies {
		id := ids[p]
		var got []Delivery
		seen := map[string]bool{}
		for _, d := range recv.Deliveries() {
			if d.AlarmID != id {
				continue
			}
			if seen[d.OccurrenceKey] {
				t.Errorf("%s: occurrence %s delivered twice", p, d.OccurrenceKey)
				continue
			}
			if !d.SignatureOK || d.OccurrenceKey != id+"/"+d.ScheduledFor.UTC().Format(time.RFC3339) {
				t.Errorf("%s: wake %+v: bad signature or occurrence key", p, d)
			}
			seen[d.OccurrenceKey] = true
			got = append(got, d)
		}
		sort.Slice(got, func(i, j int) bool { return got[i].ScheduledFor.Before(got[j].ScheduledFor) })
		if len(got) < 5 {
			t.Fatalf("%s: only %d wakes", p, len(got))
		}
		gaps := missedGaps(t, c.Events(node, id))
		first, last := got[0].ScheduledFor, got[len(got)-1].ScheduledFor
		accountFor(t, p, got, gaps, first, last)

		// late: wakes of occurrences due during the freeze and missed by the time of the
		// thaw (due before thaw − threshold), arriving after it. An occurrence due before
		// the freeze is not counted even if its wake was still in flight at SIGSTOP.
		late := 0
		for _, d := range got {
			if d.Arrived.After(thawedAt) && d.ScheduledFor.After(frozeAt) && d.ScheduledFor.Before(thawedAt.Add(-misfireThreshold)) {
				late++
			}
		}
		dropped := 0
		for _, g := range gaps {
			dropped += g.count
		}
		t.Logf("%s: %d wakes (%s to %s), %d late after the thaw, %d dropped in %d gaps",
			p, len(got), first.Format("15:04:05"), last.Format("15:04:05"), late, dropped, len(gaps))
		switch p {
		case "catch_up":
			if dropped != 0 || late != missedInFreeze {
				t.Errorf("catch_up: %d dropped, %d delivered late; want none dropped and every missed one delivered", dropped, late)
			}
		case "skip":
			if dropped < missedInFreeze || late != 0 {
				t.Errorf("skip: %d dropped, %d delivered late; want the missed ones dropped, none delivered", dropped, late)
			}
		case "fire_once":
			if dropped < missedInFreeze-1 || late != 1 {
				t.Errorf("fire_once: %d dropped, %d delivered late; want one wake for the missed window, the rest dropped", dropped, late)
			}
		}
	}
	stopAll(t, []*Node{node})
}

// gap is one missed event: count occurrences dropped, from first to last.
type gap struct {
	first, last time.Time
	count       int
}

// missedGaps reads the missed events: "N occurrence(s) dropped, FIRST to LAST (...)".
func missedGaps(t *testing.T, evs []Event) []gap {
	t.Helper()
	var out []gap
	for _, e := range evs {
		if e.Type != "missed" {
			continue
		}
		f := strings.Fields(strings.NewReplacer(",", "").Replace(e.Message))
		if len(f) < 6 || f[4] != "to" {
			t.Fatalf("missed event message %q", e.Message)
		}
		n, err := strconv.Atoi(f[0])
		first, err1 := time.Parse(time.RFC3339, f[3])
		last, err2 := time.Parse(time.RFC3339, f[5])
		if err != nil || err1 != nil || err2 != nil || !e.ScheduledFor.Equal(first) {
			t.Fatalf("missed event %+v", e)
		}
		out = append(out, gap{first, last, n})
	}
	return out
}

// accountFor checks that every occurrence from first to last, one a second, was either
// delivered or named by exactly one missed event, and nothing else.
func accountFor(t *testing.T, policy string, got []Delivery, gaps []gap, first, last time.Time) {
	t.Helper()
	covered := map[time.Time]int{}
	for _, d := range got {
		covered[d.ScheduledFor.UTC()]++
	}
	for _, g := range gaps {
		n := 0
		for o := g.first; !o.After(g.last); o = o.Add(time.Second) {
			covered[o.UTC()]++
			n++
		}
		if n != g.count {
			t.Errorf("%s: missed event says %d from %s to %s, which holds %d", policy, g.count, g.first, g.last, n)
		}
	}
	for o := first; !o.After(last); o = o.Add(time.Second) {
		if covered[o.UTC()] != 1 {
			t.Errorf("%s: occurrence %s accounted for %d times (delivered or named missed), want once", policy, o.Format(time.RFC3339), covered[o.UTC()])
		}
	}
}
