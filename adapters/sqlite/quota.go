package sqlite

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/sqltext"
	"github.com/chronoshq/chronos/domain"
)

// countActiveSQL counts the owner's alarms in domain.QuotaStatuses, up to ?2: a walk of
// the owner's ranges of those statuses in alarms_owner_status (a covering index: no
// table row is read), stopped by the LIMIT (TestCountActivePlan). Not prepared at Open
// like the hot statements: app.Quota runs it about once per refresh interval per owner.
var countActiveSQL = `SELECT count(*) FROM (SELECT 1 FROM alarms WHERE owner = ?1 AND status IN (` +
	sqltext.StatusList(domain.QuotaStatuses) + `) LIMIT ?2 + 0)`

// CountActive counts the owner's active and paused alarms, at most atMost of them.
func (s *Store) CountActive(ctx context.Context, owner string, atMost int) (int, error) {
	var n int
	if err := s.reader.QueryRowContext(ctx, countActiveSQL, owner, atMost).Scan(&n); err != nil {
		return 0, mapError(err)
	}
	return n, nil
}
