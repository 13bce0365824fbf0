package sqlite

import (
	"fmt"
	"strings"

	"github.com/chronoshq/chronos/ports"
)

// laneOf is the lane of the owner in column (migration 00008 says how and why), the
// value every INSERT of an alarm writes to its lane column, which alarms_lane_due
// indexes (00016). Written word for word as 00016's backfill, so an owner's alarms
// stored before and after it share a lane (TestLaneOfIsTheMigrations).
func laneOf(column string) string {
	return strings.ReplaceAll(laneHash, "owner", column)
}

const laneHash = `((length(owner) * 733725
	+ coalesce(unicode(substr(owner, 1, 1)), 0) * 889707
	+ coalesce(unicode(substr(owner, 2, 1)), 0) * 432947
	+ coalesce(unicode(substr(owner, 3, 1)), 0) * 333013
	+ coalesce(unicode(substr(owner, 4, 1)), 0) * 920178
	+ coalesce(unicode(substr(owner, 5, 1)), 0) * 150519
	+ coalesce(unicode(substr(owner, 6, 1)), 0) * 1011057
	+ coalesce(unicode(substr(owner, -1, 1)), 0) * 321749
	+ coalesce(unicode(substr(owner, -2, 1)), 0) * 1044195
	+ coalesce(unicode(substr(owner, -3, 1)), 0) * 265843
	+ coalesce(unicode(substr(owner, -4, 1)), 0) * 883406
	+ coalesce(unicode(substr(owner, -5, 1)), 0) * 21930
	+ coalesce(unicode(substr(owner, -6, 1)), 0) * 608737) % 1048573 % 64)`

// laneArms is one SELECT of cols per lane, UNION ALL: lane 0's active alarms that
// match where, then lane 1's, and so on. alarms_lane_due is the only due index (00010),
// so a query over every owner's due alarms is 64 ranges of it, one per lane, each a
// seek. Followed by ORDER BY of the index's order (next_fire_at, then id), SQLite
// merges the lanes (MERGE (UNION ALL), each lane a co-routine reading its range in
// order) and reads each lane only as far as the merge takes from it, so a LIMIT stops
// the whole read: at most LIMIT rows plus one past them per lane, never a backlog.
func laneArms(cols, where string) string {
	arms := make([]string, ports.Lanes)
	for i := range arms {
		arms[i] = fmt.Sprintf(`SELECT %s FROM alarms WHERE lane = %d AND status = 'active' AND %s`, cols, i, where)
	}
	return strings.Join(arms, "\nUNION ALL ")
}
