package sqlite

import (
	"strconv"
	"strings"

	"github.com/chronoshq/chronos/domain"
)

// ownerPage is OwnerPage: one of listSQLs, the owner's alarms of every status or of
// one.
func ownerPage(owner string, status domain.Status, after string, limit int) (string, []any) {
	args := []any{owner}
	if status != "" {
		args = append(args, string(status))
	}
	if after != "" {
		args = append(args, after)
	}
	return listSQLs[b2i(status != "")][b2i(after != "")], append(args, limit+1)
}

// listSQL is a page of the owner's alarms, newest first (see ownerPageSQL). Its
// parameters are the owner, the status (if any), the cursor (if any) and the limit, in
// that order.
func listSQL(status, cursor bool) string {
	n := 1
	next := func() string { n++; return "?" + strconv.Itoa(n) }
	p := pageParams{owner: "?1"}
	if status {
		p.status = next()
	}
	if cursor {
		p.cursor = next()
	}
	p.limit = next()
	return ownerPageSQL(p)
}

// pageParams name the parameters of a page statement: "" when the page has none (no
// status: every status; no cursor: the first page). where is more conditions on each
// row (" AND ..."), checked during the walk.
type pageParams struct {
	owner, status, cursor, limit string
	where                        string
}

// ownerPageSQL is a page of one owner's alarms, newest first, from alarms_owner_status
// (owner, status, id): with a status one backward walk from the cursor, stopping after
// the page; without, five such walks, one per status, merged (TestListAndRetentionPlans).
// A walk reads past the rows that fail p.where until it has the page or runs out.
func ownerPageSQL(p pageParams) string {
	after := ""
	if p.cursor != "" {
		after = ` AND id < ` + p.cursor
	}
	walk := func(status string) string {
		return `SELECT ` + alarmColumns + ` FROM alarms WHERE owner = ` + p.owner + ` AND status = ` + status +
			after + p.where + ` ORDER BY id DESC LIMIT ` + p.limit
	}
	if p.status != "" {
		return walk(p.status)
	}
	branches := make([]string, len(domain.Statuses))
	for i, st := range domain.Statuses {
		branches[i] = `SELECT * FROM (` + walk(`'`+string(st)+`'`) + `)`
	}
	return `SELECT * FROM (` + strings.Join(branches, ` UNION ALL `) + `) ORDER BY id DESC LIMIT ` + p.limit
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
