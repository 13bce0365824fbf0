package mysql

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/sqltext"
	"github.com/chronoshq/chronos/domain"
)

// countActiveSQL counts the owner's alarms in domain.QuotaStatuses, up to the second
// argument: a range of alarms_owner_status_list (owner, status, id) per status, read
// from the index alone and stopped by the LIMIT (TestCountActiveWalksItsIndex). FORCE
// INDEX pins it, as the list pages are pinned: the walk is the same one a list of a
// status makes, and a plan of the primary key filtered on owner would read the table.
var countActiveSQL = `SELECT COUNT(*) FROM (SELECT 1 FROM alarms FORCE INDEX (alarms_owner_status_list)
	WHERE owner = ? AND status IN (` + sqltext.StatusList(domain.QuotaStatuses) + `) LIMIT ?) counted`

// CountActive counts the owner's active and paused alarms, at most atMost of them.
func (s *Store) CountActive(ctx context.Context, owner string, atMost int) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, countActiveSQL, owner, atMost).Scan(&n); err != nil {
		return 0, mapError(err)
	}
	return n, nil
}
