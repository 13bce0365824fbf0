package mysql

import (
	"strings"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// filteredPage is FilteredPage.
func filteredPage(f ports.ListFilter, after string, limit int) (string, []any) {
	return adminListQuery(f).pageSQL(after, limit)
}

// adminListQuery is f as a list query. The walk is pinned, as List's is (see
// ownerIndex), so a page's plan never depends on statistics: with an owner, the owner's
// index, as List walks it; across owners, of a rare status (failed, paused, cancelled;
// failed_since is failed), alarms_rare_status from the cursor (migration 00005); across
// owners otherwise, the primary key backwards from the cursor, testing each row against
// the filters. A filter no index backs (active or fired across owners, a kind, a label
// prefix) costs the rows a page passes over, which the port allows; active and fired
// are most alarms, so such a page is found at once. Left free, the optimizer would take
// a status through a status-led index (alarms_lane_due) and sort all of that status's
// rows for every page.
func adminListQuery(f ports.ListFilter) listQuery {
	owner := f.Scope.Owner() // "" across owners
	var q listQuery
	and := func(cond string, arg any) {
		q.where = append(q.where, cond)
		q.args = append(q.args, arg)
	}
	if owner != "" {
		and(`owner = ?`, owner)
	}
	status := f.Status
	if !f.FailedSince.IsZero() {
		status = domain.StatusFailed // failed since is status failed
	}
	if status != "" {
		and(`status = ?`, string(status))
	}
	if !f.FailedSince.IsZero() {
		and(`updated_at >= ?`, micro(f.FailedSince))
	}
	if f.Kind != "" {
		and(`kind = ?`, string(f.Kind))
	}
	if f.LabelPrefix != "" {
		// Bytes, not the column's collation: a prefix is literal and case counts
		// whatever collation the table or the connection was given.
		and(`CAST(label AS BINARY) LIKE ? ESCAPE '`+likeEscape+`'`, likePrefix(f.LabelPrefix))
	}
	switch {
	case owner != "":
		q.index = ownerIndex(status != "")
	case rareStatus[status]:
		and(`rare_status = ?`, string(status))
		q.index = "alarms_rare_status"
	default:
		q.index = "PRIMARY"
	}
	return q
}

// rareStatus is the statuses alarms_rare_status holds: rare_status is the status while
// it is one of them, NULL otherwise (migration 00005).
var rareStatus = map[domain.Status]bool{
	domain.StatusFailed: true, domain.StatusPaused: true, domain.StatusCancelled: true,
}

// likeEscape escapes LIKE's wildcards in a pattern. Not the backslash, whose meaning in
// a string literal depends on the server's NO_BACKSLASH_ESCAPES mode.
const likeEscape = "!"

// likePrefix is the LIKE pattern matching the strings that start with prefix, byte for
// byte: its %, _ and escape characters escaped, then %.
func likePrefix(prefix string) []byte {
	r := strings.NewReplacer(likeEscape, likeEscape+likeEscape, "%", likeEscape+"%", "_", likeEscape+"_")
	return []byte(r.Replace(prefix) + "%")
}
