//go:build e2e

package e2e

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/internal/pgtest"
)

// TestPunctualityWithDefaultFlags runs nodes as a user does, with no --tick, and creates
// alarms one at a time over the API on a random node, each due shortly after its create
// (50 ms to 3 s: most within serve's one-second tick), beside an "@every 1s" series. A
// wake's lateness is taken at the receiver: its arrival minus its scheduled_for.
//
// The bound is loose for a busy CI machine; it guards against the class of bug where
// nodes woke on the tick, not on the alarm (a second or more late). The figures the
// nodes reach are chronos bench --punctuality's (docs/benchmarks.md).
func TestPunctualityWithDefaultFlags(t *testing.T) {
	for _, c := range []struct {
		kind  storeKind
		nodes int
	}{{onSQLite, 1}, {onPostgres, 3}, {onMySQL, 3}} {
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			punctuality(t, string(c.kind), newStoreURL(t, c.kind), c.nodes)
		})
	}
	// Behind a transaction-pooling PgBouncer without --store-listen-url the nodes get no
	// hints from each other: each alarm is still on time, fired by the node that created
	// it (or applied its last outcome), which hints itself.
	t.Run("postgres-pgbouncer-no-listen", func(t *testing.T) {
		t.Parallel()
		base := envOr("CHRONOS_TEST_POSTGRES_URL", "postgres://root@127.0.0.1:5432/postgres")
		direct := newPooledPostgresDatabase(t, base)
		bouncer := pgtest.StartBouncer(t, base)
		punctuality(t, "postgres behind pgbouncer, no listen URL", bouncer.URL(t, direct), 3)
	})
}

const punctualityBound = 250 * time.Millisecond

func punctuality(t *testing.T, kind, store string, n int) {
	recv := NewReceiver(t, e2eSecret)
	token := CreateToken(t, store, "punctual")
	cfg := NodeConfig{Store: store, WakeURL: recv.URL, Secret: e2eSecret} // the default flags
	nodes := make([]*Node, n)
	for i := range nodes {
		nodes[i] = StartNode(t, fmt.Sprintf("n%d", i), cfg)
	}
	c := NewClient(t, token)

	series := c.Create(nodes[0], `{"kind": "cron", "cron_expr": "@every 1s", "label": "series"}`)
	delays := []float64{0.05, 0.2, 0.5, 1, 2, 3}
	const sparse = 60
	for i := range sparse {
		body := fmt.Sprintf(`{"kind": "once", "delay_seconds": %g, "label": "sparse"}`, delays[i%len(delays)])
		c.Create(nodes[rand.IntN(n)], body)
		time.Sleep(100 * time.Millisecond)
	}
	deadline := time.Now().Add(15 * time.Second)
	sparseArrived := func() int {
		k := 0
		for _, d := range recv.Deliveries() {
			if d.AlarmID != series.ID {
				k++
			}
		}
		return k
	}
	for sparseArrived() < sparse && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second) // a double delivery would arrive now
	if code, body := c.do(nodes[0], "DELETE", "/v1/alarms/"+series.ID, "", nil); code != 200 {
		t.Fatalf("cancelling the series: %d %s", code, body)
	}

	var sparseLate, seriesLate []time.Duration
	seen := map[string]bool{}
	for _, d := range recv.Deliveries() {
		if !d.SignatureOK {
			t.Errorf("wake of %s: bad signature", d.AlarmID)
		}
		if seen[d.OccurrenceKey] {
			t.Errorf("occurrence %s delivered twice", d.OccurrenceKey)
		}
		seen[d.OccurrenceKey] = true
		late := d.Arrived.Sub(d.ScheduledFor)
		if late < 0 {
			t.Errorf("wake of %s arrived %s before its scheduled_for", d.AlarmID, -late)
		}
		if d.AlarmID == series.ID {
			seriesLate = append(seriesLate, late)
		} else {
			sparseLate = append(sparseLate, late)
		}
	}
	if len(sparseLate) != sparse {
		t.Fatalf("%d of %d sparse alarms arrived", len(sparseLate), sparse)
	}
	if len(seriesLate) < 5 {
		t.Fatalf("the @every 1s series fired %d times in the run, want at least 5", len(seriesLate))
	}
	for what, late := range map[string][]time.Duration{"sparse alarms": sparseLate, "@every 1s": seriesLate} {
		slices.Sort(late)
		p99 := late[(len(late)*99+99)/100-1]
		t.Logf("%s on %s, %d node(s): %d wakes, median %s, p99 %s, worst %s late",
			what, kind, n, len(late), late[len(late)/2].Round(time.Microsecond), p99.Round(time.Microsecond), late[len(late)-1].Round(time.Microsecond))
		if p99 > punctualityBound {
			t.Errorf("%s: p99 lateness %s, want under %s (default flags)", what, p99, punctualityBound)
		}
	}
}
