package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// duePausesSQL walks alarms_paused_until_idx (paused_until WHERE paused_until IS NOT
// NULL) from its earliest entry and stops at now or once it has the limit, so its cost
// is what it returns, whatever else the table holds (TestPlansWithoutStatistics).
//
// The walk is a subquery behind OFFSET 0, which the planner neither flattens nor pushes
// conditions into, because "status = 'paused'" must not reach it: with that condition
// in the same WHERE, a plan made on a table with no paused alarm took it to
// alarms_rare_status_idx and sorted every paused alarm by paused_until, those paused
// without an end included (it did, on an analyzed table). Tested on the rows the walk
// yields, it skips nothing (the domain sets paused_until only on a paused alarm) and
// keeps the port's definition should a row say otherwise. The subquery's order carries
// to the outer ORDER BY, which therefore sorts nothing. By paused_until alone, the
// index's order: ids would make the walk sort what it read.
//
// $1 is the injected clock's time or NULL for the database clock, as in claimSQL.
const duePausesSQL = `SELECT id FROM (
		SELECT id, status, paused_until FROM alarms
		WHERE paused_until <= coalesce($1::timestamptz, now())
		ORDER BY paused_until
		OFFSET 0
	) walk
	WHERE status = 'paused'
	ORDER BY paused_until
	LIMIT $2`

// DuePauses returns the ids of at most limit paused alarms whose pause has ended,
// earliest end first.
func (s *Store) DuePauses(ctx context.Context, limit int) ([]string, error) {
	if limit <= 0 {
		return []string{}, nil
	}
	rows, err := s.pool.Query(ctx, duePausesSQL, s.nowArg(), limit)
	if err != nil {
		return nil, mapError(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string]) // never nil
	if err != nil {
		return nil, mapError(err)
	}
	return ids, nil
}
