package sqlite

import "github.com/chronoshq/chronos/adapters/internal/sqlstore"

// tagSQL is how the engine writes the statements on alarm_tags: "?" placeholders, and
// the label prefix compared as bytes, as adminConds compares it.
var tagSQL = sqlstore.TagSQL{
	Param: func(int) string { return "?" },
	Join:  sqlstore.PlainTagJoin,
	// INDEXED BY fails the statement rather than let the planner pick another index.
	StatusWalk: `alarms a INDEXED BY alarms_owner_status`,
	Object:     `json_group_object(tag_key, tag_value)`,
	Cast:       func(p, _ string) string { return p },
	LabelPrefix: func(column, prefix string, arg func(any) string) string {
		return `substr(CAST(` + column + ` AS BLOB), 1, length(CAST(` + arg(prefix) + ` AS BLOB))) = CAST(` + arg(prefix) + ` AS BLOB)`
	},
}
