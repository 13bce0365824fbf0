package postgres

import (
	"context"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Two statements rather than one whose cursor condition is optional ("no cursor OR
// id < cursor"): a generic plan of that cannot bound the index scan by the cursor, and
// deep pages would walk every newer alarm of the owner. The status filter is a cheap filter on that scan.
const (
	listFirstSQL = `SELECT ` + alarmColumns + ` FROM alarms
		WHERE owner = $1 AND ($2 = '' OR status = $2)
		ORDER BY id DESC LIMIT $3`
	listAfterSQL = `SELECT ` + alarmColumns + ` FROM alarms
		WHERE owner = $1 AND ($2 = '' OR status = $2) AND id < $4
		ORDER BY id DESC LIMIT $3`
)

// List returns a page of the owner's alarms, newest first, keyset-paginated on id.
func (s *Store) List(ctx context.Context, owner string, f ports.ListFilter) ([]domain.Alarm, string, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = ports.DefaultListLimit
	}
	limit = min(limit, ports.MaxListLimit)

	// One row more than the page says whether there is a next page.
	q, args := listFirstSQL, []any{owner, string(f.Status), limit + 1}
	if f.Cursor != "" {
		after, err := ports.DecodeListCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		q, args = listAfterSQL, append(args, after)
	}
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
