package mysql

import (
	"strings"

	"github.com/chronoshq/chronos/domain"
)

// ownerPage is OwnerPage: one owner's alarms, at most of a status, newest first (ids
// are time-ordered UUIDv7 and the id column compares bytes), keyset-paginated: the
// cursor is the last id returned, so a page costs one index range scan on (owner, id)
// or (owner, status, id) however deep.
func ownerPage(owner string, status domain.Status, after string, limit int) (string, []any) {
	q := listQuery{index: ownerIndex(status != ""), where: []string{`owner = ?`}, args: []any{owner}}
	if status != "" {
		q.where = append(q.where, `status = ?`)
		q.args = append(q.args, string(status))
	}
	return q.pageSQL(after, limit)
}

// ownerIndex is the index an owner's page walks. It is pinned: left to choose, MariaDB
// took a deep page (id < cursor) as a backward range of the primary key filtered on
// owner, and a rare status as a walk of (owner, id) filtered on status, both far slower
// than the walk of the index that fits (docs/benchmarks.md, "List at scale").
func ownerIndex(byStatus bool) string {
	if byStatus {
		return "alarms_owner_status_list"
	}
	return "alarms_owner_list"
}

// listQuery is what one page of a list reads: alarms matching every condition of where
// (with args), through index, whose order after the conditions' equalities is id.
type listQuery struct {
	index string
	where []string
	args  []any
}

// pageSQL is q's statement for a page of limit alarms after cursor (decoded; "" for
// the first page): the pinned index walked backwards from the cursor, one row more
// than asked, which says whether another page follows.
func (q listQuery) pageSQL(after string, limit int) (string, []any) {
	where := q.where
	args := append([]any(nil), q.args...)
	if after != "" {
		where = append(where[:len(where):len(where)], `id < ?`)
		args = append(args, after)
	}
	var b strings.Builder
	b.WriteString(`SELECT ` + alarmColumns + ` FROM alarms FORCE INDEX (` + q.index + `)`)
	if len(where) > 0 {
		b.WriteString(` WHERE ` + strings.Join(where, ` AND `))
	}
	b.WriteString(` ORDER BY id DESC LIMIT ?`)
	return b.String(), append(args, limit+1)
}
