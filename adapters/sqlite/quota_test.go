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
	eachPlannerState(t, s, func() {
		fillOwners(t, s, `CASE WHEN n % 10 = 0 THEN 'paused' WHEN n % 3 = 0 THEN 'cancelled' ELSE 'active' END`, `NULL`)
	}, func(state string) {
		p := queryPlan(t, s, countActiveSQL, "owner1", 1000)
		if !strings.Contains(p, "USING COVERING INDEX alarms_owner_status (owner=? AND status=?)") || scansTable(p) {
			t.Errorf("%s: plan %q does not walk the owner's statuses in alarms_owner_status alone", state, p)
		}
	})
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
