package postgres

import (
	"context"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// countAlarmsSQL takes every count in one statement, so one snapshot and one now: $1 is
// the injected clock's time or NULL for the database clock (now() is the start of the
// statement's own transaction, one value throughout), $2 the lease in microseconds.
//
//   - By status: every alarm's status, once (GROUP BY). No index leads with status, so
//     this is a walk of a whole index (or the table); the port says callers sample it.
//   - The due backlog is what a claim would take (claimable, a lease that
//     ended exactly now included): alarms_due_idx up to now, the leased rows filtered out.
//   - The oldest due: the first such entry of alarms_due_idx (ORDER BY ... LIMIT 1, not
//     min(), for the reason nextDueSQL gives).
var countAlarmsSQL = `
SELECT coalesce($1::timestamptz, now()),
	(SELECT coalesce(json_object_agg(status, n), '{}') FROM (SELECT status, count(*) AS n FROM alarms GROUP BY status) c),
	(SELECT count(*) FROM alarms WHERE ` + claimable("$2") + `),
	(SELECT next_fire_at FROM alarms WHERE ` + claimable("$2") + `
	 ORDER BY next_fire_at LIMIT 1)`

// CountAlarms counts alarms by status, and the due backlog that no live lease holds.
func (s *Store) CountAlarms(ctx context.Context, lease time.Duration) (ports.AlarmCounts, error) {
	var (
		now      time.Time
		byStatus map[string]int64
		due      int64
		oldest   *time.Time
	)
	err := s.pool.QueryRow(ctx, countAlarmsSQL, s.nowArg(), lease.Microseconds()).Scan(&now, &byStatus, &due, &oldest)
	if err != nil {
		return ports.AlarmCounts{}, mapError(err)
	}
	c := ports.AlarmCounts{ByStatus: make(map[domain.Status]int64, len(domain.Statuses)), Due: due, OldestDue: deref(oldest), Now: now.UTC()}
	for _, st := range domain.Statuses {
		c.ByStatus[st] = byStatus[string(st)]
	}
	return c, nil
}
