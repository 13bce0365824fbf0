package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// countStatusesSQL counts every alarm by status (domain.Statuses, in order) in one pass
// over the smallest index that holds status (alarms_owner_status; the migrations add
// none for it: see 00004). Five filtered counts, not GROUP BY status, which sorted every
// alarm's status first and took twice as long.
var countStatusesSQL = func() string {
	counts := make([]string, len(domain.Statuses))
	for i, st := range domain.Statuses {
		counts[i] = `count(*) FILTER (WHERE status = '` + string(st) + `')`
	}
	return `SELECT ` + strings.Join(counts, ", ") + ` FROM alarms`
}()

// countDueSQL counts the due backlog and finds its oldest due time in one walk of each
// lane's range of alarms_lane_due up to now (?1): the count reads every entry of the
// ranges anyway, so the minimum costs nothing more. A lease is live, and its alarm left
// out, exactly when the claim would not take it: claimed at or before ?2 (now - lease)
// has expired (claimSQL).
var countDueSQL = `SELECT count(*), min(next_fire_at) FROM (` + laneArms(`next_fire_at`,
	`next_fire_at <= ?1 AND (claimed_at IS NULL OR claimed_at <= ?2)`) + `)`

// CountAlarms counts alarms by status and the due backlog at the store's now, both
// from one read snapshot.
func (s *Store) CountAlarms(ctx context.Context, lease time.Duration) (ports.AlarmCounts, error) {
	now := s.now()
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return ports.AlarmCounts{}, mapError(err)
	}
	defer tx.Rollback()

	counts := make([]int64, len(domain.Statuses))
	dest := make([]any, len(counts))
	for i := range counts {
		dest[i] = &counts[i]
	}
	if err := tx.StmtContext(ctx, s.reads.countStatuses).QueryRowContext(ctx).Scan(dest...); err != nil {
		return ports.AlarmCounts{}, mapError(err)
	}
	c := ports.AlarmCounts{ByStatus: make(map[domain.Status]int64, len(domain.Statuses)), Now: now}
	for i, st := range domain.Statuses {
		c.ByStatus[st] = counts[i]
	}

	var oldest sql.NullInt64
	expired := trunc(now.Add(-lease))
	if err := tx.StmtContext(ctx, s.reads.countDue).QueryRowContext(ctx, toDB(now), toDB(expired)).Scan(&c.Due, &oldest); err != nil {
		return ports.AlarmCounts{}, mapError(err)
	}
	c.OldestDue = fromDB(oldest)
	return c, nil
}
