package mysql

import (
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Each lane's take is one indexed probe: its walk is a range of alarms_lane_due on all
// three key parts, in index order (no filesort), and its locking read reaches the chosen
// rows by primary key only, as the plain claim's does (TestClaimLocksByPrimaryKeyOnly);
// the padding parts of a bucketed take read nothing; and the due lanes are found by a
// loose index scan, one dive per lane. Checked with few alarms due and with all due,
// after ANALYZE TABLE, on a table of three owners' lanes.
func TestFairClaimProbesEachLane(t *testing.T) {
	owners := ownersInLanes(3)
	s, _ := seededStore(t, 1000, func(i int) domain.Alarm {
		ago := time.Second
		if i >= 9 { // the rest not due for a day
			ago = -24 * time.Hour
		}
		return dueAlarm(t, owners[i%len(owners)], ago)
	})
	lanes := []int{laneOf(owners[0]), laneOf(owners[1]), laneOf(owners[2])}
	now := micro(testNow)
	for _, due := range []string{"few due", "all due"} {
		if due == "all due" {
			mustExec(t, s.db, "UPDATE alarms SET next_fire_at = ?", now)
		}
		mustExec(t, s.db, "ANALYZE TABLE alarms")

		plan := explainRows(t, s.db, dueLanesSQL, now)
		if len(plan) != 1 || plan[0]["key"] != "alarms_lane_due" || !strings.Contains(plan[0]["Extra"], "Using index for group-by") {
			t.Errorf("%s: the due lanes are not a loose index scan of alarms_lane_due: %v", due, plan)
		}

		text, args := fairTakeSQL(lanes, now, now.Add(-time.Minute), 10) // 4 parts, one padding
		plan = explainRows(t, s.db, text, args...)
		walks, locks := 0, 0
		for _, r := range plan {
			switch {
			case r["table"] == "alarms":
				walks++
				if r["type"] != "range" || r["key"] != "alarms_lane_due" || r["key_len"] != "76" || strings.Contains(r["Extra"], "filesort") {
					t.Errorf("%s: a lane's walk is not a range of alarms_lane_due (status, lane, next_fire_at) in index order: %v", due, r)
				}
			case r["table"] == "a":
				locks++
				if r["type"] != "eq_ref" || r["key"] != "PRIMARY" {
					t.Errorf("%s: a lane's locking read does not reach alarms by primary key only: %v", due, r)
				}
			case r["table"] != "" && !strings.HasPrefix(r["table"], "<derived"):
				t.Errorf("%s: unexpected read: %v", due, r)
			}
		}
		if walks != len(lanes) || locks != len(lanes) {
			t.Errorf("%s: %d walks and %d locking reads for %d lanes (the padding part must read nothing): %v",
				due, walks, locks, len(lanes), plan)
		}
	}
}
