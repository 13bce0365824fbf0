package mysql

import "github.com/chronoshq/chronos/adapters/internal/sqlstore"

// tagSQL is how the engine writes the statements on alarm_tags: "?" placeholders, and
// the label prefix as filteredPage matches it (LIKE on the bytes, wildcards escaped).
var tagSQL = sqlstore.TagSQL{
	Param: func(int) string { return "?" },
	LabelPrefix: func(column, prefix string, arg func(any) string) string {
		return `CAST(` + column + ` AS BINARY) LIKE ` + arg(likePrefix(prefix)) + ` ESCAPE '` + likeEscape + `'`
	},
}
