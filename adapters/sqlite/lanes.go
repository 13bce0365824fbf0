package sqlite

import (
	"fmt"
	"strings"

	"github.com/chronoshq/chronos/ports"
)

// laneSQL is the lane of the owner in column (migration 00008 says how and why), as
// migration 00016's backfill wrote it to every alarm's lane column, word for word
// (TestLaneSQLIsTheMigrations).
func laneSQL(column string) string {
	return strings.ReplaceAll(laneHash, "owner", column)
}

// laneOf is laneHash computed here, the lane every insert of an alarm binds
// (Engine.LaneArg): for a UTF-8 owner, every owner the API accepts, the same as
// laneSQL's (TestLaneOfIsLaneSQL), so an owner's alarms stored before and after 00016
// share a lane. As an expression in the INSERT it cost the single writer about 2 µs an
// alarm. What it weighs: the length in characters, the first six characters and the
// last six, a missing one weighing 0. An owner that is not UTF-8 may get another lane
// here than the backfill gave its older alarms: they are claimed all the same, only
// shared out as another owner's.
func laneOf(owner string) int {
	r := []rune(owner)
	at := func(i int) int64 { // 0-based; negative counts from the end
		if i < 0 {
			i += len(r)
		}
		if i < 0 || i >= len(r) {
			return 0
		}
		return int64(r[i])
	}
	sum := int64(len(r))*733725 +
		at(0)*889707 + at(1)*432947 + at(2)*333013 + at(3)*920178 + at(4)*150519 + at(5)*1011057 +
		at(-1)*321749 + at(-2)*1044195 + at(-3)*265843 + at(-4)*883406 + at(-5)*21930 + at(-6)*608737
	return int(sum % 1048573 % ports.Lanes)
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
