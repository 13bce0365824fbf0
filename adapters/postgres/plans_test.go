package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/domain"
)

// loadAlarms inserts rows straight into the schema (the way a long-running installation
// accumulates them) and refreshes the planner's statistics. notDue are active and a day
// out, due are active and about a day late, done are terminal.
func loadAlarms(t testing.TB, s *Store, notDue, due, done int) {
	t.Helper()
	insertAlarms(t, s, notDue, due, done)
	if _, err := s.pool.Exec(context.Background(), `ANALYZE alarms`); err != nil {
		t.Fatalf("analyze: %v", err)
	}
}

// insertAlarms is loadAlarms without refreshing the statistics: the table as a server
// with autovacuum off keeps it.
func insertAlarms(t testing.TB, s *Store, notDue, due, done int) {
	t.Helper()
	ctx := context.Background()
	_, err := s.pool.Exec(ctx, `
		INSERT INTO alarms (id, owner, kind, fire_at, next_fire_at, scheduled_for, status, delivery,
		                    max_failures, created_at, updated_at)
		SELECT lpad(g::text, 12, '0'), 'owner' || (g % 50), 'once', at, at, at,
		       CASE WHEN g <= $1::int + $2::int THEN 'active' ELSE 'fired' END, 'at_least_once', 5, now(), now()
		FROM (
			SELECT g, CASE WHEN g <= $1::int THEN now() + interval '1 day' + g * interval '1 ms'
			               ELSE now() - interval '1 day' + (g - $1::int) * interval '1 ms' END AS at
			FROM generate_series(1, $1::int + $2::int + $3::int) AS g
		) rows`, notDue, due, done)
	if err != nil {
		t.Fatalf("load alarms: %v", err)
	}
}

// explainGeneric returns the plan PostgreSQL uses for the claim statement query once a
// prepared statement has switched to its generic plan (forced here, so the test does
// not depend on the five-execution heuristic), with the given EXPLAIN options.
// Parameters are those of a real claim: the database clock, a two-minute lease, a
// batch of 100. With ANALYZE the claim really runs, inside a transaction rolled back
// afterwards, so the rows stay as they were.
func explainGeneric(t testing.TB, s *Store, query, options string) string {
	t.Helper()
	return explainGenericWith(t, s, query, options, `NULL, 'explain-worker', 120000000, 100`)
}

// explainGenericWith is explainGeneric with the EXECUTE arguments given as SQL.
func explainGenericWith(t testing.TB, s *Store, query, options, args string) string {
	t.Helper()
	return explainIn(t, s, "force_generic_plan", query, options, args, nil)
}

// explainIn is explainGenericWith under the given plan_cache_mode (force_custom_plan
// makes the plan for the arguments), calling during, when not nil, after the EXPLAIN
// and before the rollback: with ANALYZE, while the statement's row locks are held.
func explainIn(t testing.TB, s *Store, mode, query, options, args string, during func()) string {
	t.Helper()
	ctx := context.Background()
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Hijack: the session settings and the prepared statement must not go back to the
	// pool.
	conn := pc.Hijack()
	defer closeConn(conn)
	for _, q := range []string{
		`SET plan_cache_mode = ` + mode,
		`PREPARE claim_plan AS ` + query, // whichever statement it is
		`BEGIN`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	execute := `EXECUTE claim_plan`
	if args != "" {
		execute += `(` + args + `)`
	}
	rows, err := conn.Query(ctx, `EXPLAIN (`+options+`) `+execute)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	if during != nil {
		during()
	}
	if _, err := conn.Exec(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n") + "\n"
}

// The claim must never read the whole table, whatever plan PostgreSQL settles on. The
// generic plan of a prepared statement is the one that goes wrong for the naive
// "id IN (SELECT ...)" form (a hash semi join over every alarm), so it is the one
// checked: the due index must drive the choice, and alarms must never be scanned
// sequentially.
func TestClaimGenericPlanUsesDueIndex(t *testing.T) {
	s, _ := newTestStore(t, nil)
	loadAlarms(t, s, 20000, 200, 5000)

	plan := explainGeneric(t, s, claimSQL, "COSTS OFF")
	if !strings.Contains(plan, "alarms_due_idx") {
		t.Errorf("generic claim plan does not use alarms_due_idx:\n%s", plan)
	}
	if strings.Contains(plan, "Seq Scan on alarms") {
		t.Errorf("generic claim plan scans alarms sequentially:\n%s", plan)
	}
	if !strings.Contains(plan, "$1") {
		t.Errorf("plan is not generic (no parameter placeholders):\n%s", plan)
	}

	// Executed, it reads a batch: the 100 oldest due rows, and nothing not yet due.
	analyzed := explainGeneric(t, s, claimSQL, "ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF")
	if !strings.Contains(analyzed, "rows=100") {
		t.Errorf("claim did not lease a full batch of 100:\n%s", analyzed)
	}
}

// planAt is the time the plan tests' literals carry.
const planAt = "2031-01-01T00:00:00Z"

// applyLiterals are two transitions (one fenced, one not) and one event, as array
// literals in the order of applySQL's parameters.
var applyLiterals = strings.Join([]string{
	`'{000000000001,000000000002}'`, `'{t,f}'`, `'{w,NULL}'`, `'{` + planAt + `,NULL}'`,
	`'{fired,cancelled}'`, `'{NULL,NULL}'`, `'{NULL,NULL}'`, `'{0,0}'`,
	`'{"",""}'`, `'{NULL,NULL}'`, `'{f,f}'`, `'{` + planAt + `,` + planAt + `}'`,
	`'{0,0}'`, `'{0,0}'`, `'{"",""}'`, `'{NULL,NULL}'`,
	`'{000000000001}'`, `'{fired}'`, `'{` + planAt + `}'`, `'{1}'`, `'{NULL}'`, `'{w}'`, `'{""}'`,
	`'{1500}'`, `'{204}'`, `'{NULL}'`, `'{NULL}'`, `'{f}'`, // the event's receipt (the attempt log)
}, ", ")

// Apply's batch statement finds each row by primary key in every plan too; a batch of
// outcomes must never cost a scan of the table.
func TestApplyGenericPlanUsesPrimaryKey(t *testing.T) {
	s, _ := newTestStore(t, nil)
	loadAlarms(t, s, 20000, 200, 5000)
	plan := explainGenericWith(t, s, applySQL, "COSTS OFF", applyLiterals)
	if !strings.Contains(plan, "Index Scan using alarms_pkey on alarms") {
		t.Errorf("generic apply plan does not look rows up by primary key:\n%s", plan)
	}
	if strings.Contains(plan, "Seq Scan on alarms") {
		t.Errorf("generic apply plan scans alarms sequentially:\n%s", plan)
	}
}

// Looking an alarm up by idempotency key must use the partial unique index in the
// generic plan too, which the store's sessions always use; otherwise a dedupe would read
// every alarm of the owner.
func TestIdempotencyKeyGenericPlanUsesPartialIndex(t *testing.T) {
	s, _ := newTestStore(t, nil)
	loadAlarms(t, s, 20000, 200, 5000)
	if _, err := s.pool.Exec(context.Background(), `UPDATE alarms SET idempotency_key = 'k' || id WHERE id < '000000000100'`); err != nil {
		t.Fatal(err)
	}
	plan := explainGenericWith(t, s, byIdempotencyKeySQL, "COSTS OFF", `'owner1', 'k000000000051'`)
	if !strings.Contains(plan, "alarms_owner_idempotency_key_idx") {
		t.Errorf("generic plan of the idempotency-key lookup does not use the partial unique index:\n%s", plan)
	}
}

// The store's sessions plan prepared statements generically (see genericPlans), unless
// the store URL says otherwise.
func TestSessionsUseGenericPlans(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ param, want string }{
		{"", "force_generic_plan"},
		{"&plan_cache_mode=auto", "auto"},
	} {
		s := openStore(t, newSchema(t)+c.param, Options{Migrate: true})
		var got string
		if err := s.pool.QueryRow(ctx, `SHOW plan_cache_mode`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("URL parameters %q: plan_cache_mode = %s, want %s", c.param, got, c.want)
		}
	}
}

// The admin API's page of every owner's alarms walks alarms_pkey backwards and stops
// after the page, in the generic plan, whatever the table holds: executed on 25,200
// alarms it reads the page and the one row that says there is a next, from the top or
// from a cursor. (TestPlansWithoutStatistics checks every shape's plan; this one runs.)
func TestAdminListGenericPlanStopsAfterThePage(t *testing.T) {
	s, _ := newTestStore(t, nil)
	loadAlarms(t, s, 20000, 200, 5000)
	for _, c := range []struct{ name, sql, args string }{
		{"first page", adminListSQL[0][0][0], `101, NULL, NULL, NULL, NULL`},
		{"from a cursor", adminListSQL[0][0][1], `101, NULL, NULL, NULL, NULL, '000000010000'`},
	} {
		plan := explainGenericWith(t, s, c.sql, "ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF", c.args)
		if !strings.Contains(plan, "Index Scan Backward using alarms_pkey on alarms (actual rows=101 loops=1)") {
			t.Errorf("%s: the page does not walk alarms_pkey for 101 rows and stop:\n%s", c.name, plan)
		}
		if sortNode.MatchString(plan) || strings.Contains(plan, "Seq Scan") {
			t.Errorf("%s: the page reads more than it returns:\n%s", c.name, plan)
		}
	}
}

// A cross-owner page of a rare status (failed, paused, cancelled) walks
// alarms_rare_status_idx and stops after the page, however many alarms of the other
// statuses there are: executed on 25,200 alarms of which 150 are failed, and on the same
// with none, it reads the index entries of the page and the one row more, never the
// primary key (which the page of a status none has read to its end before migration
// 00005).
func TestAdminListRareStatusStopsAfterThePage(t *testing.T) {
	s, _ := newTestStore(t, nil)
	loadAlarms(t, s, 20000, 200, 5000)
	const failed = `UPDATE alarms SET status = 'failed' WHERE id::int % 100 = 0 AND id >= '000000010000'`
	for _, c := range []struct{ name, sql, args, rows string }{
		{"failed, none", adminRareSQL[domain.StatusFailed][0], `101, 'failed', NULL, NULL, NULL`, "rows=0"},
		{"paused, none, from a cursor", adminRareSQL[domain.StatusPaused][1], `101, 'paused', NULL, NULL, NULL, '000000010000'`, "rows=0"},
		{"failed", adminRareSQL[domain.StatusFailed][0], `101, 'failed', NULL, NULL, NULL`, "rows=101"},
		{"failed, from a cursor", adminRareSQL[domain.StatusFailed][1], `101, 'failed', NULL, NULL, NULL, '000000025000'`, "rows=101"},
		{"failed since", adminRareSQL[domain.StatusFailed][0], `101, 'failed', NULL, NULL, '2000-01-01T00:00:00Z'`, "rows=101"},
	} {
		if c.name == "failed" {
			if _, err := s.pool.Exec(context.Background(), failed); err != nil {
				t.Fatal(err)
			}
		}
		plan := explainGenericWith(t, s, c.sql, "ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF", c.args)
		if !strings.Contains(plan, "Index Scan Backward using alarms_rare_status_idx on alarms (actual "+c.rows+" loops=1)") {
			t.Errorf("%s: the page does not walk alarms_rare_status_idx for %s and stop:\n%s", c.name, c.rows, plan)
		}
		if sortNode.MatchString(plan) || strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "alarms_pkey") {
			t.Errorf("%s: the page reads more than it returns:\n%s", c.name, plan)
		}
	}
}

// DuePauses walks alarms_paused_until_idx from its earliest entry and stops after the
// limit: executed on 25,200 alarms, 2,000 of them paused and 200 of those with an end
// that has passed, a call for 10 reads 10 index entries, never the alarms paused without
// an end (which alarms_rare_status_idx would have led it to sort).
func TestDuePausesStopsAtTheLimit(t *testing.T) {
	s, _ := newTestStore(t, nil)
	loadAlarms(t, s, 20000, 200, 5000)
	ctx := context.Background()
	for _, q := range []string{
		`UPDATE alarms SET status = 'paused' WHERE id::int % 10 = 0 AND id < '000000020000'`,
		`UPDATE alarms SET paused_until = now() - id::int * interval '1 second' WHERE id::int % 100 = 0 AND id < '000000020000'`,
		`ANALYZE alarms`,
	} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	plan := explainGenericWith(t, s, duePausesSQL, "ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF", `NULL, 10`)
	if !strings.Contains(plan, "Index Scan using alarms_paused_until_idx on alarms (actual rows=10 loops=1)") {
		t.Errorf("DuePauses does not walk alarms_paused_until_idx for 10 rows and stop:\n%s", plan)
	}
	if sortNode.MatchString(plan) || strings.Contains(plan, "alarms_rare_status_idx") {
		t.Errorf("DuePauses reads more than it returns:\n%s", plan)
	}
}
