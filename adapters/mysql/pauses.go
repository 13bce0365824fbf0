package mysql

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
)

// duePausesSQL walks alarms_paused_until from its first entry and stops at now or once
// it has the limit, so its cost is what it returns (TestDuePausesWalksItsIndex). The
// range "paused_until <= ?" starts after the index's NULLs: the alarms paused without
// an end and every alarm that is not paused. FORCE INDEX pins it, as the list pages are
// pinned: left free, MariaDB 10.11 also read every paused alarm's entry in the due
// index (status leads it) to build a rowid filter for the walk, and another plan could
// walk that range and sort it. InnoDB's entries end with the primary key, so the rows come
// in (paused_until, id) order without a sort. status is checked on each row the walk
// yields: the domain sets paused_until only on a paused alarm, so the check skips
// nothing, and it keeps the port's definition should a row say otherwise. The first
// argument is the injected clock's time or NULL for the database clock (injectedNow).
const duePausesSQL = `SELECT id FROM alarms FORCE INDEX (alarms_paused_until)
	WHERE paused_until <= COALESCE(?, UTC_TIMESTAMP(6)) AND status = 'paused'
	ORDER BY paused_until
	LIMIT ?`

// DuePauses returns the ids of at most limit paused alarms whose pause has ended,
// earliest end first.
func (s *Store) DuePauses(ctx context.Context, limit int) ([]string, error) {
	if limit <= 0 {
		return []string{}, nil
	}
	ids, err := sqlrow.Query(ctx, s.db, func(r sqlrow.Scanner) (id string, err error) {
		return id, r.Scan(&id)
	}, duePausesSQL, s.injectedNow(), limit)
	return ids, mapError(err)
}
