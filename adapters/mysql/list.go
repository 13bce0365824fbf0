package mysql

import (
	"context"
	"strings"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// List returns the owner's alarms newest first (ids are time-ordered UUIDv7 and the id
// column compares bytes), keyset-paginated: the cursor is the last id returned, so a
// page costs one index range scan on (owner, id) or (owner, status, id) however deep.
func (s *Store) List(ctx context.Context, owner string, f ports.ListFilter) ([]domain.Alarm, string, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = ports.DefaultListLimit
	}
	limit = min(limit, ports.MaxListLimit)

	var q strings.Builder
	q.WriteString(`SELECT ` + alarmColumns + ` FROM alarms WHERE owner = ?`)
	args := []any{owner}
	if f.Status != "" {
		q.WriteString(` AND status = ?`)
		args = append(args, string(f.Status))
	}
	if f.Cursor != "" {
		after, err := ports.DecodeListCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		q.WriteString(` AND id < ?`)
		args = append(args, after)
	}
	// One row more than asked says whether another page follows.
	q.WriteString(` ORDER BY id DESC LIMIT ?`)
	args = append(args, limit+1)

	rows, err := s.db.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, "", mapError(ctx, err)
	}
	alarms, err := scanAlarms(rows)
	if err != nil {
		return nil, "", mapError(ctx, err)
	}
	if alarms == nil {
		alarms = []domain.Alarm{}
	}
	if len(alarms) <= limit {
		return alarms, "", nil
	}
	alarms = alarms[:limit]
	return alarms, ports.EncodeListCursor(alarms[limit-1].ID), nil
}
