package sqlite

import (
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// adminWalk is the index an admin page walks, newest first, stopping after the page.
type adminWalk int

const (
	// walkAll: every owner's alarms, through the primary key in id order.
	walkAll adminWalk = iota
	// walkOwner: one owner's alarms of every status, five walks of alarms_owner_status
	// merged, as an unfiltered List page.
	walkOwner
	// walkOwnerStatus: one owner's alarms of one status, one walk of alarms_owner_status.
	walkOwnerStatus
	// walkFailed, walkPaused, walkCancelled: every owner's alarms of that status, one
	// walk of alarms_rare_status (migration 00005), which holds only the alarms in a
	// status a healthy cluster has few of. Through the primary key, a page of a status
	// that ten alarms have, or none, read every other alarm first.
	walkFailed
	walkPaused
	walkCancelled

	adminWalks // how many there are
)

// rareWalks are the walks of alarms_rare_status, by the status each reads. SQLite uses
// a partial index only for a statement whose WHERE implies the index's, and a bound
// status implies nothing when the statement is prepared: each walk's statement names
// its status as a literal, one statement per status, prepared once.
var rareWalks = map[domain.Status]adminWalk{
	domain.StatusFailed:    walkFailed,
	domain.StatusPaused:    walkPaused,
	domain.StatusCancelled: walkCancelled,
}

// adminConds are the filter's conditions on each row a walk reads. The parameters of
// every admin page are ?1 owner, ?2 status ("" for any), ?3 kind ("" for any), ?4 label
// prefix, ?5 failed since (NULL for none), ?6 cursor, ?7 limit; a walk that needs no
// owner or cursor leaves theirs unused.
//
// The label prefix compares bytes: the label's first bytes, as many as ?4 has, must be
// ?4's. LIKE would need its wildcards and escape character escaped, and is
// case-insensitive for ASCII in SQLite ("Ca" would find "case"); a blob comparison is
// memcmp, whatever the column's collation. An empty prefix matches every label: it is
// tested for first, because substr of an empty blob is text, which never equals a blob
// (an alarm without a label vanished from every page before).
//
// Each optional condition holds for an empty (or NULL) parameter, so that one
// statement, prepared once, serves every combination of filters, and none of them is
// an index constraint: the walk is the same whatever is bound (TestAdminPlans checks,
// among others, status 'active', which the partial alarms_lane_due covers).
const adminConds = `(?2 = '' OR status = ?2) AND (?3 = '' OR kind = ?3)
	AND (?4 = '' OR substr(CAST(label AS BLOB), 1, length(CAST(?4 AS BLOB))) = CAST(?4 AS BLOB))
	AND (?5 IS NULL OR (status = 'failed' AND updated_at >= ?5))`

// adminListSQL is a page of List walking w, after the cursor or not.
func adminListSQL(w adminWalk, cursor bool) string {
	p := pageParams{owner: "?1", limit: "?7", where: " AND " + adminConds}
	if cursor {
		p.cursor = "?6"
	}
	switch w {
	case walkOwnerStatus:
		p.status = "?2"
		return ownerPageSQL(p)
	case walkOwner:
		return ownerPageSQL(p)
	}
	where := adminConds
	for st, rare := range rareWalks {
		if w == rare {
			where = `status = '` + string(st) + `' AND ` + where
		}
	}
	if cursor {
		where += ` AND id < ?6`
	}
	return `SELECT ` + alarmColumns + ` FROM alarms WHERE ` + where + ` ORDER BY id DESC LIMIT ?7 + 0`
}

// filteredPage is FilteredPage, every page but the owner API's: with an owner it walks
// alarms_owner_status as ownerPage does (of failed alone for failed since); without,
// of a rare status, alarms_rare_status; otherwise the primary key. Each walk reads past
// the alarms that do not match the other filters, so a page's cost grows with those it
// skips (the port allows it).
func filteredPage(f ports.ListFilter, after string, limit int) (string, []any) {
	owner := f.Scope.Owner()
	walk := walkAll
	switch {
	case owner != "" && f.Status != "":
		walk = walkOwnerStatus
	case owner != "":
		walk = walkOwner
	case f.Status != "":
		if rare, ok := rareWalks[f.Status]; ok {
			walk = rare
		}
	}
	return adminListSQLs[walk][b2i(after != "")],
		[]any{owner, string(f.Status), string(f.Kind), f.LabelPrefix, toDB(trunc(f.FailedSince)), after, limit + 1}
}
