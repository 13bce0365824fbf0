package postgres

import (
	"strconv"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
)

// tagSQL is how the engine writes the statements on alarm_tags: numbered placeholders,
// and the label prefix as adminFiltersSQL compares it (starts_with in "C").
var tagSQL = sqlstore.TagSQL{
	Param:      func(i int) string { return "$" + strconv.Itoa(i) },
	Join:       sqlstore.PlainTagJoin,
	StatusWalk: `alarms a`,
	Object:     `json_object_agg(tag_key, tag_value)::text`,
	Cast:       func(p, typ string) string { return p + "::" + typ },
	LabelPrefix: func(column, prefix string, arg func(any) string) string {
		return `starts_with(` + column + ` COLLATE "C", ` + arg(prefix) + `::text)`
	},
}
