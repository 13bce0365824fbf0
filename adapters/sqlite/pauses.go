package sqlite

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
)

// duePausesSQL walks alarms_paused_until (paused_until WHERE paused_until IS NOT NULL)
// from its earliest entry and stops at now or once it has the limit, so its cost is
// what it returns (TestDuePausesPlan). The unary + keeps the status term from
// constraining an index: an equality on status would otherwise draw SQLite to
// alarms_rare_status (status, id), every paused alarm, those paused without an end
// included, sorted by paused_until. Tested on the rows the walk yields, it skips
// nothing (the domain sets paused_until only on a paused alarm) and keeps the port's
// definition should a row say otherwise.
const duePausesSQL = `SELECT id FROM alarms
	WHERE paused_until <= ?1 AND +status = 'paused'
	ORDER BY paused_until
	LIMIT ?2 + 0`

// DuePauses returns the ids of at most limit paused alarms whose pause has ended,
// earliest end first, on the process's (or injected) clock.
func (s *Store) DuePauses(ctx context.Context, limit int) ([]string, error) {
	if limit <= 0 {
		return []string{}, nil
	}
	ids, err := sqlrow.Query(ctx, s.reader, func(r sqlrow.Scanner) (id string, err error) {
		return id, r.Scan(&id)
	}, duePausesSQL, toDB(s.now()), limit)
	return ids, mapError(err)
}
