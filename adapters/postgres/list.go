package postgres

import (
	"strings"

	"github.com/chronoshq/chronos/domain"
)

// Four statements rather than one whose conditions are optional ("no cursor OR id <
// cursor", "no status OR status = $3"): a generic plan of such a statement cannot bound
// its index scan by the cursor or the status, and a deep page, or a rare status, would
// walk every alarm of the owner.
//
// One index serves all four, alarms_owner_status_id_idx (owner, status, id). With a
// status the page is one backward walk of it from the cursor. Without one it is five
// such walks, one per status, each stopping after a page, merged newest first (a Merge
// Append): at most five pages read for one returned, whatever the owner holds. That
// costs a little more per unfiltered page than a walk of an (owner, id) index, and saves
// that index: every fire's outcome is a new row version with an entry in each index of
// alarms, so one index fewer is one write fewer per fire.
// TestPlansWithoutStatistics checks each statement.
var (
	listFirstSQL       = listAllStatuses(false)
	listAfterSQL       = listAllStatuses(true)
	listStatusFirstSQL = `SELECT ` + alarmColumns + ` FROM alarms
		WHERE owner = $1 AND status = $3 ORDER BY id DESC LIMIT $2`
	listStatusAfterSQL = `SELECT ` + alarmColumns + ` FROM alarms
		WHERE owner = $1 AND status = $3 AND id < $4 ORDER BY id DESC LIMIT $2`
)

// listAllStatuses is the unfiltered page: one bounded walk per status, merged. With
// cursor, the cursor is $3.
func listAllStatuses(cursor bool) string {
	cond := ""
	if cursor {
		cond = ` AND id < $3`
	}
	return statusWalks("$1", "$2", cond)
}

// statusWalks is a page of an owner's alarms of every status that meet cond (SQL
// starting with " AND", or ""): one backward walk of alarms_owner_status_id_idx per
// status, each stopping after limit rows that meet cond, merged newest first. ownerPage and
// filteredPage with an owner and no status page this way.
func statusWalks(owner, limit, cond string) string {
	branches := make([]string, len(domain.Statuses))
	for i, st := range domain.Statuses {
		branches[i] = `(SELECT ` + alarmColumns + ` FROM alarms WHERE owner = ` + owner + ` AND status = '` + string(st) + `'` +
			cond + ` ORDER BY id DESC LIMIT ` + limit + `)`
	}
	return `SELECT ` + alarmColumns + ` FROM (` + strings.Join(branches, ` UNION ALL `) + `) page ORDER BY id DESC LIMIT ` + limit
}

// ownerPage is OwnerPage: one of the four statements above.
func ownerPage(owner string, status domain.Status, after string, limit int) (string, []any) {
	args := []any{owner, limit + 1}
	if status != "" {
		args = append(args, string(status))
	}
	if after != "" {
		args = append(args, after)
	}
	q := [2][2]string{{listFirstSQL, listAfterSQL}, {listStatusFirstSQL, listStatusAfterSQL}}[b2i(status != "")][b2i(after != "")]
	return q, args
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
