package sqlite

import (
	"strings"
	"testing"
)

// queryPlan is EXPLAIN QUERY PLAN of q, its details joined.
func queryPlan(t *testing.T, s *Store, q string, args ...any) string {
	t.Helper()
	rows, err := s.reader.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatalf("EXPLAIN: %v", err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "; ")
}

// Every page of a list walks an index in order and stops after the page, with or
// without a status and a cursor, on a database never analyzed; retention's walks and a
// debounced create's writes use their indexes too.
func TestListAndRetentionPlans(t *testing.T) {
	s := openTemp(t, nil)
	for _, c := range []struct {
		name  string
		q     string
		args  []any
		index string
	}{
		{"list", listSQL(false, false), []any{"o", 11}, "alarms_owner_status"},
		{"list after", listSQL(false, true), []any{"o", "x", 11}, "alarms_owner_status"},
		{"list of a status", listSQL(true, false), []any{"o", "active", 11}, "alarms_owner_status"},
		{"list of a status after", listSQL(true, true), []any{"o", "active", "x", 11}, "alarms_owner_status"},
		{"expired alarms", expiredAlarmsSQL, []any{0, 100}, "alarms_terminal"},
		// A debounced create's replace and its release of a key find their row by id.
		{"debounce replace", engineSQL.ReplaceAlarm, []any{1, 1, 1, "null", "l", "m", 1, "a"}, "INDEX sqlite_autoindex_alarms_1 (id=?)"},
		{"debounce releases a key", engineSQL.ReleaseKey, []any{"", "a", "k"}, "INDEX sqlite_autoindex_alarms_1 (id=?)"},
	} {
		p := queryPlan(t, s, c.q, c.args...)
		if !strings.Contains(p+" ", c.index) || strings.Contains(p, "SCAN alarms") || sortsAWalk(p) {
			t.Errorf("%s: plan %q does not walk %s in order", c.name, p, c.index)
		}
	}
}

// sortsAWalk reports whether the plan sorts what it read from a table: a temp b-tree
// right after a SEARCH or SCAN of alarms. (An unfiltered list sorts each status's page,
// a subquery of at most a page, to merge them: bounded, and not this.)
func sortsAWalk(plan string) bool {
	steps := strings.Split(plan, "; ")
	for i := 1; i < len(steps); i++ {
		if strings.HasPrefix(steps[i], "USE TEMP B-TREE") &&
			(strings.HasPrefix(steps[i-1], "SEARCH alarms") || strings.HasPrefix(steps[i-1], "SCAN alarms")) {
			return true
		}
	}
	return false
}

// Every admin page walks an index in order and stops after the page, whichever walk and
// whatever the filters' values (status 'active' must not turn the walk into a sort of
// alarms_lane_due); the counts, the deletes by id and ExtendLease's update use their
// indexes (the due backlog's, one range per lane: TestFairClaimPlan).
func TestAdminPlans(t *testing.T) {
	s := openTemp(t, nil)
	walks := map[adminWalk]string{
		walkAll:         "USING INDEX sqlite_autoindex_alarms_1", // the primary key
		walkOwner:       "USING INDEX alarms_owner_status ",
		walkOwnerStatus: "USING INDEX alarms_owner_status ",
		walkFailed:      "USING INDEX alarms_rare_status (status=?",
		walkPaused:      "USING INDEX alarms_rare_status (status=?",
		walkCancelled:   "USING INDEX alarms_rare_status (status=?",
	}
	for walk, index := range walks {
		for _, cursor := range []bool{false, true} {
			for _, status := range []string{"", "active", "failed"} {
				p := queryPlan(t, s, adminListSQL(walk, cursor), "o", status, "once", "billing:", 1, "x", 11)
				if !strings.Contains(p, index) || scansTable(p) || sortsAWalk(p) {
					t.Errorf("admin page (walk %d, cursor %t, status %q): plan %q does not walk %s in order",
						walk, cursor, status, p, index)
				}
				if walk != walkOwner && strings.Contains(p, "TEMP B-TREE") {
					t.Errorf("cross-owner page (cursor %t, status %q) sorts: %q", cursor, status, p)
				}
			}
		}
	}
	for _, c := range []struct {
		name, q string
		args    []any
		index   string
	}{
		{"counts by status", countStatusesSQL, nil, "COVERING INDEX alarms_owner_status"},
		{"delete events by alarm id", deleteEventsOfSQL, []any{`["a"]`}, "INDEX alarm_events_alarm (alarm_id=?)"},
		{"delete alarms by id", deleteAlarmsSQL, []any{`["a"]`}, "INDEX sqlite_autoindex_alarms_1 (id=?)"},
		{"extend a lease", extendLeaseSQL, []any{1, "a", "w", 1}, "INDEX sqlite_autoindex_alarms_1 (id=?)"},
	} {
		p := queryPlan(t, s, c.q, c.args...)
		if !strings.Contains(p, c.index) || strings.Contains(p, "TEMP B-TREE") || scansTable(p) {
			t.Errorf("%s: plan %q does not use %s", c.name, p, c.index)
		}
	}
}

// scansTable reports whether the plan reads a table without an index.
func scansTable(plan string) bool {
	for _, step := range strings.Split(plan, "; ") {
		if step == "SCAN alarms" || step == "SCAN alarm_events" {
			return true
		}
	}
	return false
}

// eachPlannerState runs check on s as the planner sees it three ways, which it names:
// an empty database, the rows fill writes never analyzed, and the same analyzed. A plan
// must hold in all three, or some database will see the other one.
func eachPlannerState(t *testing.T, s *Store, fill func(), check func(state string)) {
	t.Helper()
	check("empty")
	fill()
	check("never analyzed")
	mustExec(t, s, `ANALYZE`)
	check("analyzed")
}

// fillOwners inserts 20,000 one-off alarms of 50 owners, owner0 to owner49 in turn: the
// n-th (from 1) has id n in 12 digits and is due, created and updated at n (unix
// milliseconds), with the status and paused_until the SQL expressions of n give.
func fillOwners(t *testing.T, s *Store, status, pausedUntil string) {
	t.Helper()
	mustExec(t, s, `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 20000)
		INSERT INTO alarms (id, owner, kind, fire_at, next_fire_at, scheduled_for, payload, status, delivery,
		                    max_failures, created_at, updated_at, paused_until)
		SELECT printf('%012d', n), 'owner' || (n % 50), 'once', n, n, n, X'7B7D', `+status+`, 'at_least_once', 5, n, n, `+pausedUntil+`
		FROM g`)
}

// mustExec runs q on s's writer, failing t on an error.
func mustExec(t testing.TB, s *Store, q string, args ...any) {
	t.Helper()
	if _, err := s.writer.ExecContext(t.Context(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// A cross-owner page of a rare status walks alarms_rare_status in id order, from the
// cursor, and stops after the page, whatever the planner knows: on an empty database,
// on 20,000 alarms (ten failed) never analyzed, and on the same analyzed.
func TestAdminRareStatusPlans(t *testing.T) {
	s := openTemp(t, nil)
	eachPlannerState(t, s, func() {
		fillOwners(t, s, `CASE WHEN n % 2000 = 0 THEN 'failed' WHEN n % 10 = 0 THEN 'active' ELSE 'fired' END`, `NULL`)
	}, func(state string) {
		for _, walk := range rareWalks {
			for _, cursor := range []bool{false, true} {
				p := queryPlan(t, s, adminListSQL(walk, cursor), "", "", "", "", nil, "000000010000", 11)
				if !strings.Contains(p, "USING INDEX alarms_rare_status (status=?") || scansTable(p) || strings.Contains(p, "TEMP B-TREE") {
					t.Errorf("%s: rare walk %d, cursor %t: plan %q does not walk alarms_rare_status in order", state, walk, cursor, p)
				}
			}
		}
	})
}

// DuePauses walks alarms_paused_until in order and stops after the limit, whatever the
// planner knows: on an empty database, on 20,000 alarms (2,000 paused, a tenth of those
// with an end) never analyzed, and on the same analyzed. It never takes the equality on
// status to alarms_rare_status, which holds the alarms paused without an end too.
func TestDuePausesPlan(t *testing.T) {
	s := openTemp(t, nil)
	eachPlannerState(t, s, func() {
		fillOwners(t, s, `CASE WHEN n % 10 = 0 THEN 'paused' ELSE 'active' END`, `CASE WHEN n % 100 = 0 THEN n END`)
	}, func(state string) {
		p := queryPlan(t, s, duePausesSQL, 10000, 10)
		if !strings.Contains(p, "USING INDEX alarms_paused_until (paused_until<?)") || scansTable(p) || strings.Contains(p, "TEMP B-TREE") {
			t.Errorf("%s: plan %q does not walk alarms_paused_until in order", state, p)
		}
	})
}
