package postgres

import (
	"context"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Four statements rather than one whose conditions are optional ("no cursor OR id <
// cursor", "no status OR status = $2"): a generic plan of such a statement cannot bound
// its index scan by the cursor or the status, and a deep page, or a rare status, would
// walk every alarm of the owner. Each of these is one backward walk of an index whose
// leading columns the WHERE fixes (alarms_owner_id_idx, or alarms_owner_status_id_idx
// with a status), stopping after the page: TestPlansWithoutStatistics checks each.
const (
	listFirstSQL = `SELECT ` + alarmColumns + ` FROM alarms
		WHERE owner = $1 ORDER BY id DESC LIMIT $2`
	listAfterSQL = `SELECT ` + alarmColumns + ` FROM alarms
		WHERE owner = $1 AND id < $3 ORDER BY id DESC LIMIT $2`
	listStatusFirstSQL = `SELECT ` + alarmColumns + ` FROM alarms
		WHERE owner = $1 AND status = $3 ORDER BY id DESC LIMIT $2`
	listStatusAfterSQL = `SELECT ` + alarmColumns + ` FROM alarms
		WHERE owner = $1 AND status = $3 AND id < $4 ORDER BY id DESC LIMIT $2`
)

// List returns a page of the owner's alarms, newest first, keyset-paginated on id.
func (s *Store) List(ctx context.Context, owner string, f ports.ListFilter) ([]domain.Alarm, string, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = ports.DefaultListLimit
	}
	limit = min(limit, ports.MaxListLimit)

	// One row more than the page says whether there is a next page.
	args := []any{owner, limit + 1}
	if f.Status != "" {
		args = append(args, string(f.Status))
	}
	if f.Cursor != "" {
		after, err := ports.DecodeListCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		args = append(args, after)
	}
	q := [2][2]string{{listFirstSQL, listAfterSQL}, {listStatusFirstSQL, listStatusAfterSQL}}[b2i(f.Status != "")][b2i(f.Cursor != "")]
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

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
