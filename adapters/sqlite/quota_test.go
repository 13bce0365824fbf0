package sqlite

import (
	"strings"
	"testing"
)

// The quota's count walks the owner's active and paused entries of alarms_owner_status
// alone (a covering index: no table row read) whatever the planner knows: on an empty
// database, on 20,000 alarms of 50 owners never analyzed, and on the same analyzed.
func TestCountActivePlan(t *testing.T) {
	s := openTemp(t, nil)
	for _, st := range []struct{ name, sql string }{
		{"empty", ``},
		{"never analyzed", `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 20000)
			INSERT INTO alarms (id, owner, kind, cron_expr, next_fire_at, scheduled_for, payload, status, delivery,
			                    max_failures, created_at, updated_at)
			SELECT printf('%012d', n), 'owner' || (n % 50), 'cron', '* * * * *', n, n, X'7B7D',
			       CASE WHEN n % 10 = 0 THEN 'paused' WHEN n % 3 = 0 THEN 'cancelled' ELSE 'active' END,
			       'at_least_once', 5, n, n
			FROM g`},
		{"analyzed", `ANALYZE`},
	} {
		if st.sql != "" {
			if _, err := s.writer.ExecContext(t.Context(), st.sql); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
		}
		p := queryPlan(t, s, countActiveSQL, "owner1", 1000)
		if !strings.Contains(p, "USING COVERING INDEX alarms_owner_status (owner=? AND status=?)") || scansTable(p) {
			t.Errorf("%s: plan %q does not walk the owner's statuses in alarms_owner_status alone", st.name, p)
		}
	}
	// owner1 is n = 1, 51, 101, ...: 400 alarms, none paused (n % 10 = 1), a third
	// cancelled.
	want := 0
	for n := 1; n <= 20000; n += 50 {
		if n%3 != 0 {
			want++
		}
	}
	if got, err := s.CountActive(t.Context(), "owner1", 1000); err != nil || got != want {
		t.Errorf("CountActive(owner1, 1000) = %d, %v; want %d", got, err, want)
	}
	if got, err := s.CountActive(t.Context(), "owner1", 10); err != nil || got != 10 {
		t.Errorf("CountActive(owner1, 10) = %d, %v; want 10", got, err)
	}
}
