package postgres

import (
	"context"
	"strconv"
	"strings"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// AdminList's statements, one per combination of owner, status and cursor (eight), for
// the reason List has four: a generic plan can bound its index walk only by conditions
// that are always there. Which index a page walks, and from where, is decided by those
// three:
//
//   - No owner: alarms_pkey backwards from the cursor, stopping after the page. A status
//     is a filter on the rows walked. A page then costs the alarms it skips over (the
//     port allows it); no index is added for it (migration 00004 says why).
//   - An owner and a status: one backward walk of alarms_owner_status_id_idx.
//   - An owner alone: one such walk per status, merged, as List's unfiltered page.
//
// Kind, label prefix and failed-since are never part of an index walk, so they are
// optional conditions ("$n IS NULL OR ..."), checked on each row walked; the walk
// itself is bounded the same whether they are given or not. The label prefix is
// compared with starts_with in the "C" collation: byte for byte, so LIKE's wildcards,
// backslashes and case mean nothing special. TestPlansWithoutStatistics checks the
// plans.
//
// Parameters: $1 the page size (plus one), $2 kind, $3 label prefix, $4 failed since
// (each NULL when not filtering), then owner, status and cursor, those present, in
// that order.
const adminFiltersSQL = `($2::text IS NULL OR kind = $2)
	AND ($3::text IS NULL OR starts_with(label COLLATE "C", $3))
	AND ($4::timestamptz IS NULL OR (status = 'failed' AND updated_at >= $4))`

// adminListSQL[owner][status][cursor] is the statement of each shape.
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

func adminListStatement(owner, status, cursor bool) string {
	n := 4
	param := func() string { n++; return "$" + strconv.Itoa(n) }
	var ownerP, statusP string
	if owner {
		ownerP = param()
	}
	if status {
		statusP = param()
	}
	conds := []string{adminFiltersSQL}
	if cursor {
		conds = append(conds, `id < `+param())
	}
	switch {
	case owner && !status:
		return statusWalks(ownerP, "$1", ` AND `+strings.Join(conds, ` AND `))
	case owner:
		conds = append([]string{`owner = ` + ownerP, `status = ` + statusP}, conds...)
	case status:
		conds = append(conds, `status = `+statusP)
	}
	return `SELECT ` + alarmColumns + ` FROM alarms WHERE ` + strings.Join(conds, ` AND `) + ` ORDER BY id DESC LIMIT $1`
}

// AdminList returns a page of every owner's alarms matching f, newest first,
// keyset-paginated on id with List's cursor.
func (s *Store) AdminList(ctx context.Context, f ports.AdminFilter) ([]domain.Alarm, string, error) {
	var after string
	if f.Cursor != "" {
		var err error
		if after, err = ports.DecodeListCursor(f.Cursor); err != nil {
			return nil, "", err
		}
	}
	limit := f.Limit
	if limit <= 0 {
		limit = ports.DefaultListLimit
	}
	limit = min(limit, ports.MaxListLimit)

	// Failed since implies the failed status (its condition says so too): with an
	// owner the page is then one walk of the owner's failed alarms, not five; with
	// another status nothing can match, and no walk is needed to find that out.
	status := f.Status
	if !f.FailedSince.IsZero() {
		if status != "" && status != domain.StatusFailed {
			return []domain.Alarm{}, "", nil
		}
		status = domain.StatusFailed
	}

	// One row more than the page says whether there is a next page.
	args := []any{limit + 1, textArg(string(f.Kind)), textArg(f.LabelPrefix), timeArg(f.FailedSince)}
	if f.Owner != "" {
		args = append(args, f.Owner)
	}
	if status != "" {
		args = append(args, string(status))
	}
	if after != "" {
		args = append(args, after)
	}
	q := adminListSQL[b2i(f.Owner != "")][b2i(status != "")][b2i(after != "")]
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, "", mapError(err)
	}
	alarms, err := collectAlarms(rows, limit+1)
	if err != nil {
		return nil, "", mapError(err)
	}
	if len(alarms) <= limit {
		return alarms, "", nil
	}
	alarms = alarms[:limit]
	return alarms, ports.EncodeListCursor(alarms[limit-1].ID), nil
}
