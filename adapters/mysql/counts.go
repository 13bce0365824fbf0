package mysql

import (
	"context"
	"database/sql"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// countByStatusSQL counts every alarm by status in one walk of alarms_lane_due, the
// smallest index that carries status (status leads it, as every alarm is in it), in
// status order, so the grouping needs no temporary table.
const countByStatusSQL = `SELECT status, COUNT(*) FROM alarms FORCE INDEX (alarms_lane_due) GROUP BY status`

// countDueSQL counts the due backlog as the claim sees it: in each lane, the range of
// alarms_lane_due from status 'active' up to now (lane IN every lane makes it 64
// ranges, not a walk of every active alarm), each row looked up for its lease (not in
// the index); a row leased at or after now - lease is in flight, not backlog. The
// earliest next_fire_at comes from the same walk: the count reads the whole range
// anyway, so a separate ordered read would only read its heads a second time.
var countDueSQL = `SELECT COUNT(*), MIN(next_fire_at) FROM alarms FORCE INDEX (alarms_lane_due)
	WHERE status = 'active' AND lane IN (` + everyLane + `) AND next_fire_at <= ? AND (claimed_by IS NULL OR claimed_at < ?)`

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
