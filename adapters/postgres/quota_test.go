package postgres

import (
	"strings"
	"testing"
)

// The quota's count reads the owner's entries of alarms_owner_status_id_idx and stops
// at its limit: executed on 40,200 alarms of 50 owners (owner1 has 404 active ones), a
// count up to 100 reads 100 entries and one up to 1,000 the owner's 404, never the
// table's other rows.
func TestCountActiveStopsAtItsLimit(t *testing.T) {
	s, _ := newTestStore(t, nil)
	loadAlarms(t, s, 20000, 200, 20000)
	for _, c := range []struct{ args, rows string }{
		{`'owner1', 100`, "rows=100"},
		{`'owner1', 1000`, "rows=404"},
	} {
		plan := explainGenericWith(t, s, countActiveSQL, "ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF", c.args)
		if !strings.Contains(plan, "Limit (actual "+c.rows+" loops=1)") ||
			!strings.Contains(plan, "Index Only Scan using alarms_owner_status_id_idx on alarms (actual "+c.rows+" loops=1)") {
			t.Errorf("CountActive(%s) does not read %s index entries and stop:\n%s", c.args, c.rows, plan)
		}
	}
	if n, err := s.CountActive(t.Context(), "owner1", 1000); err != nil || n != 404 {
		t.Errorf("CountActive(owner1, 1000) = %d, %v; want 404", n, err)
	}
}
