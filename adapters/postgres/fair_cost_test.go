package postgres

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/ports"
)

// TestFairClaimCostForDocs measures what docs/postgres.md, "Fair claims", quotes: a
// fair claim of 1,000 against a plain claim of 1,000, through ClaimDue and its pooled
// sessions, on 100,000 due alarms (of one owner, then of 16) behind 1,000,000 not yet
// due (of 10,000 owners, so every lane has some), vacuumed and analyzed; then how long
// migration 00009 takes on that table, and whether it holds up writes. Each claim has a zero lease, so the next one
// takes the same rows again and every run sees the same table. It loads 1.1 million
// rows into a throwaway database, so it runs only when asked:
//
//	CHRONOS_PG_FAIR_COST=/tmp/fair-cost.txt go test ./adapters/postgres/ \
//	    -run TestFairClaimCostForDocs -count=1 -v -timeout 30m
func TestFairClaimCostForDocs(t *testing.T) {
	out := storetest.Asked(t, "CHRONOS_PG_FAIR_COST", "<output file>", "measure fair claims against plain ones (loads 1,100,000 rows)")
	const notDue, due, batch, runs = 1_000_000, 100_000, 1000, 50
	ctx := context.Background()
	var report strings.Builder
	logf := func(format string, args ...any) {
		fmt.Fprintf(&report, format+"\n", args...)
		t.Logf(format, args...)
	}
	var version string
	if err := adminPool(t).QueryRow(ctx, `SELECT version()`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	logf("%s", version)

	u := newDatabase(t)
	s := openStore(t, u, Options{Migrate: true})
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := s.pool.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	// A day ahead, a millisecond apart; or from a day ago, a millisecond apart.
	const insert = `
		INSERT INTO alarms (id, owner, kind, fire_at, next_fire_at, scheduled_for, status, delivery,
		                    max_failures, created_at, updated_at)
		SELECT $1::text || lpad(g::text, 8, '0'), owner, 'once', at, at, at, 'active', 'at_least_once', 5, now(), now()
		FROM (SELECT g, $2::text || (g % $3::int) AS owner, $4::timestamptz + g * interval '1 ms' AS at
		      FROM generate_series(1, $5::int) AS g) rows`
	start := time.Now()
	exec(insert, "n", "later-", 10_000, time.Now().Add(24*time.Hour), notDue)
	logf("loaded %d alarms not yet due in %v", notDue, time.Since(start).Round(time.Second))

	claim := func(p ports.ClaimParams) (time.Duration, int) {
		t.Helper()
		begin := time.Now()
		c, err := s.ClaimDue(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return time.Since(begin), len(c.Alarms)
	}
	for _, owners := range []int{1, 16} {
		exec(`DELETE FROM alarms WHERE id LIKE 'd%'`)
		exec(insert, "d", "due-", owners, time.Now().Add(-24*time.Hour), due)
		exec(`VACUUM ANALYZE alarms`)
		var lanes int
		if err := s.pool.QueryRow(ctx, `SELECT count(DISTINCT hashtext(owner) & 63) FROM alarms WHERE id LIKE 'd%'`).Scan(&lanes); err != nil {
			t.Fatal(err)
		}
		logf("\n%d due alarms of %d owners (%d lanes), %d not yet due; claims of %d, %d runs each, interleaved:",
			due, owners, lanes, notDue, batch, runs)
		// PerLane 80 fills the batch from 16 owners' 13 lanes, 63 does not (all 64 lanes
		// are visited); with one owner each takes PerLane from its lane.
		kinds := []struct {
			name, sql, args string
			p               ports.ClaimParams
		}{
			{"plain", claimSQL, fmt.Sprintf(`NULL, 'w', 0, %d`, batch), ports.ClaimParams{Worker: "w", Batch: batch}},
		}
		for _, perLane := range []int{batch, 80, 63} {
			kinds = append(kinds, struct {
				name, sql, args string
				p               ports.ClaimParams
			}{fmt.Sprintf("fair, PerLane %d", perLane), fairClaimSQL, fmt.Sprintf(`NULL, 'w', 0, %d, %s, %d`, batch, laneArg(0), perLane),
				ports.ClaimParams{Worker: "w", Batch: batch, Fair: &ports.FairClaim{Start: 0, PerLane: perLane}}})
		}
		took := make([][]time.Duration, len(kinds))
		got := make([]int, len(kinds))
		for run := -3; run < runs; run++ { // three to warm up
			for i, k := range kinds {
				d, n := claim(k.p)
				if run >= 0 {
					took[i], got[i] = append(took[i], d), n
				}
			}
		}
		for i, k := range kinds {
			slices.Sort(took[i])
			explainGenericWith(t, s, k.sql, "ANALYZE, BUFFERS", k.args)
			plan := explainGenericWith(t, s, k.sql, "ANALYZE, BUFFERS", k.args)
			logf("  %-18s %4d alarms  ClaimDue median %5.2f ms, p90 %5.2f ms;  EXPLAIN ANALYZE: %s, %s", k.name, got[i],
				ms(took[i][runs/2]), ms(took[i][runs*9/10]), planLine(plan, "Execution Time: "), planLine(plan, "Buffers: "))
			if owners == 16 && k.name != "fair, PerLane 63" {
				logf("\n== %s, generic plan, %d owners ==\n%s", k.name, owners, plan)
			}
		}
	}

	// Migration 00009 on this table: down to 00008 (dropping the index), then up again,
	// timed, while another session updates one alarm after another: the longest of those
	// updates is how long the build held writes up (CONCURRENTLY should not). Then, for
	// comparison, the same index built without CONCURRENTLY, which blocks writes.
	_ = s.Close()
	db, p := gooseOn(t, u)
	if _, err := p.DownTo(ctx, 8); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	longest := make(chan time.Duration)
	go func() {
		var most time.Duration
		for i := 1; ; i++ {
			select {
			case <-done:
				longest <- most
				return
			default:
			}
			begin := time.Now()
			if _, err := db.ExecContext(ctx, `UPDATE alarms SET updated_at = now() WHERE id = $1`,
				fmt.Sprintf("n%08d", i)); err != nil {
				t.Error(err)
			}
			most = max(most, time.Since(begin))
		}
	}()
	start = time.Now()
	_, err := p.UpTo(ctx, 9)
	took := time.Since(start)
	close(done)
	most := <-longest
	if err != nil {
		t.Fatal(err)
	}
	logf("\nmigration 00009 on %d alarms: %v; the longest update beside it took %v",
		notDue+due, took.Round(10*time.Millisecond), most.Round(100*time.Microsecond))
	if _, err := db.ExecContext(ctx, `DROP INDEX alarms_lane_due_idx`); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if _, err := db.ExecContext(ctx, `CREATE INDEX alarms_lane_due_idx ON alarms ((hashtext(owner) & 63), next_fire_at)
		WHERE status = 'active'`); err != nil {
		t.Fatal(err)
	}
	logf("the same index without CONCURRENTLY (writes wait): %v", time.Since(start).Round(10*time.Millisecond))

	if err := os.WriteFile(out, []byte(report.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", out)
}

// planLine is the first line of plan that holds prefix, from there on.
func planLine(plan, prefix string) string {
	i := strings.Index(plan, prefix)
	if i < 0 {
		return ""
	}
	line, _, _ := strings.Cut(plan[i:], "\n")
	return line
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
