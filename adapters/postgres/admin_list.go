package postgres

import (
	"strconv"
	"strings"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// FilteredPage's statements, every page but the owner API's: one per combination of
// owner, status and cursor (six: without an owner the status is a filter like the
// others), for the reason ownerPage has four: a generic plan can bound its index walk
// only by conditions that are always there; and six more, one per rare status and
// cursor, without an owner. The walk, and what bounds it:
//
//   - No owner: alarms_pkey backwards from the cursor, stopping after the page. A page
//     then costs the alarms it skips over that do not match (the port allows it).
//   - No owner, a rare status (failed, paused, cancelled; failed since is failed):
//     alarms_rare_status_idx backwards from the cursor, stopping after the page
//     (migration 00005), so a page of a status few alarms have no longer reads every
//     alarm that has another. The index is partial, and a generic plan uses a partial
//     index only when the statement's own WHERE implies its predicate: the status is a
//     literal in these statements, never $2.
//   - An owner and a status: one backward walk of alarms_owner_status_id_idx.
//   - An owner alone: one such walk per status, merged, as List's unfiltered page.
//
// Every statement checks all the filters (status, kind, label prefix, failed since) on
// the rows it walks, in the optional form "$n IS NULL OR ...", which is never an index
// condition. That matters for the status without an owner: written "status = $n" it
// let a generic plan made on an empty or never analyzed table scan the whole
// (owner, status, id) index on its second column and sort every alarm of that status
// (TestPlansWithoutStatistics). The label prefix is compared with starts_with in the
// "C" collation: byte for byte, so LIKE's wildcards, backslashes and case mean nothing
// special. Failed since carries its status, so it never matches another.
//
// Parameters: $1 the page size (plus one), $2 status, $3 kind, $4 label prefix, $5
// failed since (each NULL when not filtering), then the owner and the cursor, those
// present, in that order.
const adminFiltersSQL = `($2::text IS NULL OR status = $2)
	AND ($3::text IS NULL OR kind = $3)
	AND ($4::text IS NULL OR starts_with(label COLLATE "C", $4))
	AND ($5::timestamptz IS NULL OR (status = 'failed' AND updated_at >= $5))`

// adminListSQL[owner][status][cursor] is the statement of each shape. Without an owner
// the status is only a filter, so both [0][status] are the same statements.
var adminListSQL = func() (q [2][2][2]string) {
	for _, owner := range []bool{false, true} {
		for _, status := range []bool{false, true} {
			for _, cursor := range []bool{false, true} {
				q[b2i(owner)][b2i(status)][b2i(cursor)] = adminListStatement(owner, status, cursor)
			}
		}
	}
	return q
}()

// rareStatuses are the statuses alarms_rare_status_idx holds (migration 00005).
var rareStatuses = []domain.Status{domain.StatusFailed, domain.StatusPaused, domain.StatusCancelled}

// adminRareSQL[status][cursor] is the cross-owner page of one rare status: the
// statement without an owner, with the status also written as a literal. Parameters as
// adminListSQL's.
var adminRareSQL = func() map[domain.Status][2]string {
	q := make(map[domain.Status][2]string, len(rareStatuses))
	for _, st := range rareStatuses {
		q[st] = [2]string{adminRareStatement(st, false), adminRareStatement(st, true)}
	}
	return q
}()

func adminRareStatement(st domain.Status, cursor bool) string {
	where := `status = '` + string(st) + `' AND ` + adminFiltersSQL
	if cursor {
		where += ` AND id < $6`
	}
	return `SELECT ` + alarmColumns + ` FROM alarms WHERE ` + where + ` ORDER BY id DESC LIMIT $1`
}

func adminListStatement(owner, status, cursor bool) string {
	conds := []string{adminFiltersSQL}
	if owner && status {
		conds = append([]string{`owner = $6`, `status = $2`}, conds...)
	}
	if cursor {
		conds = append(conds, `id < $`+strconv.Itoa(6+b2i(owner)))
	}
	where := strings.Join(conds, ` AND `)
	if owner && !status {
		return statusWalks("$6", "$1", ` AND `+where)
	}
	return `SELECT ` + alarmColumns + ` FROM alarms WHERE ` + where + ` ORDER BY id DESC LIMIT $1`
}

// filteredPage is FilteredPage: one of the statements above.
func filteredPage(f ports.ListFilter, after string, limit int) (string, []any) {
	owner := f.Scope.Owner()
	// One row more than the page says whether there is a next page.
	args := []any{limit + 1, sqlstore.NullText(string(f.Status)), sqlstore.NullText(string(f.Kind)), sqlstore.NullText(f.LabelPrefix), timeArg(f.FailedSince)}
	if owner != "" {
		args = append(args, owner)
	}
	if after != "" {
		args = append(args, after)
	}
	if rare, ok := adminRareSQL[f.Status]; ok && owner == "" {
		return rare[b2i(after != "")], args
	}
	return adminListSQL[b2i(owner != "")][b2i(f.Status != "")][b2i(after != "")], args
}
