package mysql

import (
	"context"
	"database/sql"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// countByStatusSQL counts every alarm by status in one walk of alarms_due, the smallest
// index that carries status, in status order, so the grouping needs no temporary table.
const countByStatusSQL = `SELECT status, COUNT(*) FROM alarms FORCE INDEX (alarms_due) GROUP BY status`

// countDueSQL counts the due backlog as the claim sees it: the range of alarms_due from
// status 'active' up to now, each row looked up for its lease (not in the index); a row
// leased at or after now - lease is in flight, not backlog. The earliest next_fire_at
// comes from the same walk: the count reads the whole range anyway, so a separate
// ordered LIMIT 1 would only read its head a second time.
const countDueSQL = `SELECT COUNT(*), MIN(next_fire_at) FROM alarms FORCE INDEX (alarms_due)
	WHERE status = 'active' AND next_fire_at <= ? AND (claimed_by IS NULL OR claimed_at < ?)`

// CountAlarms counts alarms by status and the due backlog at the store's now. Each
// count is its own statement (READ COMMITTED: its own snapshot), so under load the
// backlog may be a moment newer than the counts by status.
func (s *Store) CountAlarms(ctx context.Context, lease time.Duration) (ports.AlarmCounts, error) {
	now, err := s.now(ctx, s.db)
	if err != nil {
		return ports.AlarmCounts{}, mapError(err)
	}
	c := ports.AlarmCounts{ByStatus: make(map[domain.Status]int64, len(domain.Statuses)), Now: now}
	for _, st := range domain.Statuses {
		c.ByStatus[st] = 0
	}
	rows, err := s.db.QueryContext(ctx, countByStatusSQL)
	if err != nil {
		return ports.AlarmCounts{}, mapError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return ports.AlarmCounts{}, mapError(err)
		}
		c.ByStatus[domain.Status(st)] = n
	}
	if err := rows.Err(); err != nil {
		return ports.AlarmCounts{}, mapError(err)
	}
	var oldest sql.NullTime
	if err := s.db.QueryRowContext(ctx, countDueSQL, now, micro(now.Add(-lease))).Scan(&c.Due, &oldest); err != nil {
		return ports.AlarmCounts{}, mapError(err)
	}
	if oldest.Valid {
		c.OldestDue = oldest.Time.UTC()
	}
	return c, nil
}
