package mysql

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/ports"
)

// TestFairClaimCost times fair claims of 1,000 against plain claims of 1,000 over a due
// backlog of 300,000 alarms, of one owner and of 16 owners in 16 lanes, alternating the
// two so that drift hits both alike; docs/mysql.md quotes its output. Each claim's
// alarms are then marked fired (untimed), so no claim walks over the leases of the ones
// before. It loads a few hundred thousand rows, so it runs only when asked:
//
//	CHRONOS_MYSQL_FAIR_COST=1 go test ./adapters/mysql/ -run TestFairClaimCost -v -timeout 30m
func TestFairClaimCost(t *testing.T) {
	storetest.Asked(t, "CHRONOS_MYSQL_FAIR_COST", "1", "load 300,000 due alarms and time fair against plain claims")
	const (
		rows   = 300_000
		batch  = 1000
		rounds = 30
	)
	type fairCase struct {
		name    string
		perLane int
	}
	for _, tc := range []struct {
		owners int
		fair   []fairCase
	}{
		{1, []fairCase{{"fair, PerLane 1000", 1000}, {"fair, PerLane 16", 16}}},
		{16, []fairCase{{"fair, PerLane 62 (16 x 62 <= 1000: one take)", 62}, {"fair, PerLane 63 (two takes)", 63}, {"fair, PerLane 1000", 1000}}},
	} {
		t.Run(fmt.Sprintf("%d owners", tc.owners), func(t *testing.T) {
			// One connection, so the session's counters are the claims' own.
			s, _ := openTestStore(t, Options{}, "pool_max_conns", "1")
			ctx := t.Context()
			owners := ownersInLanes(tc.owners)
			start := time.Now()
			mustExec(t, s.db, `INSERT INTO alarms (`+alarmColumns+`)
				SELECT CONCAT('0190f0c0-0000-7000-8000-', LPAD(n, 12, '0')), ELT(n % ?  + 1, '`+strings.Join(owners, "', '")+`'),
					'cost', 'once', due, '', '', due, due, '', '', 'null', 'active', 'at_least_once', NULL, 5, 0, '', NULL, NULL,
					due, due, NULL, NULL, 0, 0, '', NULL, ''
				FROM (SELECT n, UTC_TIMESTAMP(6) - INTERVAL 1 DAY + INTERVAL n * 100 MICROSECOND AS due
					FROM (SELECT a.d + 10*b.d + 100*c.d + 1000*e.d + 10000*f.d + 100000*g.d AS n
						FROM `+digits+` a, `+digits+` b, `+digits+` c, `+digits+` e, `+digits+` f, `+digits+` g
						WHERE g.d < ?) ns) gen`, tc.owners, rows/100_000)
			mustExec(t, s.db, "ANALYZE TABLE alarms")
			t.Logf("loaded %d due alarms of %d owners in %s", rows, tc.owners, time.Since(start).Round(time.Second))
			if tc.owners == 16 {
				now, err := s.Now(ctx)
				if err != nil {
					t.Fatal(err)
				}
				explain(t, s.db, "the due lanes", dueLanesSQL, now)
				analyzeQuery(t, s, "the due lanes", dueLanesSQL, now)
				text, args := fairTakeSQL([]int{laneOf(owners[0]), laneOf(owners[1])}, now, now.Add(-time.Hour), 62)
				explain(t, s.db, "a take from two lanes, 62 each", text, args...)
			}

			work := map[string][3]int{} // statements, index dives, index entries read per claim (last round)
			claim := func(p ports.ClaimParams) (time.Duration, int) {
				t.Helper()
				before := sessionCounters(t, s)
				begin := time.Now()
				c, err := s.ClaimDue(ctx, p)
				took := time.Since(begin)
				if err != nil {
					t.Fatal(err)
				}
				after := sessionCounters(t, s)
				name := "plain"
				if p.Fair != nil {
					name = fmt.Sprint(p.Fair.PerLane)
				}
				work[name] = [3]int{after[0] - before[0] - 1, after[1] - before[1], after[2] - before[2]}
				ids := make([]any, len(c.Alarms))
				for i, a := range c.Alarms {
					ids[i] = a.ID
				}
				if len(ids) > 0 {
					mustExec(t, s.db, `UPDATE alarms SET status = 'fired', claimed_by = NULL, claimed_at = NULL
						WHERE id IN (`+placeholders(len(ids))+`)`, ids...)
				}
				return took, len(c.Alarms)
			}
			plain := ports.ClaimParams{Worker: "w", Lease: time.Hour, Batch: batch}
			times := map[string][]time.Duration{}
			got := map[string]int{}
			for range 2 { // warm both paths and their prepared statements
				claim(plain)
				for _, f := range tc.fair {
					claim(ports.ClaimParams{Worker: "w", Lease: time.Hour, Batch: batch, Fair: &ports.FairClaim{Start: 0, PerLane: f.perLane}})
				}
			}
			next := 0
			for range rounds {
				d, n := claim(plain)
				times["plain"], got["plain"] = append(times["plain"], d), n
				for _, f := range tc.fair {
					p := ports.ClaimParams{Worker: "w", Lease: time.Hour, Batch: batch, Fair: &ports.FairClaim{Start: next, PerLane: f.perLane}}
					d, n := claim(p)
					times[f.name], got[f.name] = append(times[f.name], d), n
				}
				next = (next + 5) % ports.Lanes // a different lane order each round
			}
			var version string
			if err := s.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
				t.Fatal(err)
			}
			report := fmt.Sprintf("%s, %d due alarms of %d owners, claims of %d, %d rounds (median, min, max; statements, index dives, index entries read):",
				version, rows, tc.owners, batch, rounds)
			names := []string{"plain"}
			keys := []string{"plain"}
			for _, f := range tc.fair {
				names, keys = append(names, f.name), append(keys, fmt.Sprint(f.perLane))
			}
			for i, name := range names {
				ts, w := times[name], work[keys[i]]
				slices.Sort(ts)
				report += fmt.Sprintf("\n  %-45s %4d alarms  %8s  %8s  %8s  %2d  %4d  %5d", name, got[name],
					ts[len(ts)/2].Round(10*time.Microsecond), ts[0].Round(10*time.Microsecond), ts[len(ts)-1].Round(10*time.Microsecond),
					w[0], w[1], w[2])
			}
			t.Log(report)
		})
	}
}

// sessionCounters reads, on the store's one connection, how many statements it ran
// (Questions), index dives (Handler_read_key) and index entries read in order
// (Handler_read_next).
func sessionCounters(t *testing.T, s *Store) [3]int {
	t.Helper()
	var c [3]int
	rows, err := s.db.QueryContext(t.Context(), `SHOW SESSION STATUS WHERE Variable_name IN ('Questions', 'Handler_read_key', 'Handler_read_next')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		c[map[string]int{"Questions": 0, "Handler_read_key": 1, "Handler_read_next": 2}[name]] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return c
}
