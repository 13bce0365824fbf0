package mysql

import "github.com/chronoshq/chronos/adapters/internal/sqlstore"

// tagSQL is how the engine writes the statements on alarm_tags: "?" placeholders, and
// the label prefix as filteredPage matches it (LIKE on the bytes, wildcards escaped).
// The join is pinned, as the admin pages' walks are: given a status, MariaDB would take
// the alarms of it across owners through alarms_lane_due and sort them. The tags are
// read inline (TagSQL.Inline), never through a derived table of alarm rows. A bounded
// walk reads its bound first: MariaDB bounds an index range by a one-row table's value,
// not by a subquery's, and would walk past it to the pair's last entry.
var tagSQL = sqlstore.TagSQL{
	Param:      func(int) string { return "?" },
	Object:     `JSON_OBJECTAGG(tag_key, tag_value)`,
	StatusWalk: `alarms a FORCE INDEX (alarms_owner_status_list)`,
	Join:       `alarm_tags t FORCE INDEX (alarm_tags_filter) STRAIGHT_JOIN alarms a FORCE INDEX (PRIMARY) ON a.id = t.alarm_id`,
	BoundFirst: `STRAIGHT_JOIN`,
	Cast:       func(p, _ string) string { return p },
	Inline:     true,
	LabelPrefix: func(column, prefix string, arg func(any) string) string {
		return `CAST(` + column + ` AS BINARY) LIKE ` + arg(likePrefix(prefix)) + ` ESCAPE '` + likeEscape + `'`
	},
}
