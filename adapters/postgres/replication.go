package postgres

import (
	"context"
	"fmt"
)

// replicationSQL reads what a failover could cost: the standbys streaming from this
// server by kind, the session's synchronous_commit, and whether any at-most-once alarm
// is active (walking the due index, stopping at the first). A role without
// pg_read_all_stats sees no sync_state and so no standby: the notice then says nothing.
const replicationSQL = `
SELECT current_setting('synchronous_commit'),
       count(*) FILTER (WHERE r.sync_state = 'async'),
       count(*) FILTER (WHERE r.sync_state IN ('sync', 'quorum')),
       EXISTS (SELECT 1 FROM alarms WHERE status = 'active' AND delivery = 'at_most_once')
FROM pg_stat_replication r`

// ReplicationNotice says, once at start-up, when a failover could break at-most-once:
// at-most-once alarms are active and the standbys stream asynchronously (or commits do
// not wait for them), so a promoted standby may miss an advance and send that
// occurrence again (docs/postgres.md, "Failover"). "" when there is nothing to say.
func (s *Store) ReplicationNotice(ctx context.Context) (string, error) {
	var (
		syncCommit      string
		async, waitedOn int
		atMostOnce      bool
	)
	if err := s.pool.QueryRow(ctx, replicationSQL).Scan(&syncCommit, &async, &waitedOn, &atMostOnce); err != nil {
		return "", mapError(err)
	}
	commitsWait := syncCommit == "on" || syncCommit == "remote_write" || syncCommit == "remote_apply"
	if !atMostOnce || async+waitedOn == 0 || (waitedOn > 0 && commitsWait) {
		return "", nil
	}
	why := fmt.Sprintf("%d standby(s) stream asynchronously", async)
	if waitedOn > 0 {
		why = fmt.Sprintf("synchronous_commit = %s, so commits do not wait for the synchronous standby", syncCommit)
	}
	return fmt.Sprintf("%s and at-most-once alarms are active: a failover may lose acknowledged creates and "+
		"outcomes, and send an at-most-once occurrence a second time; make a standby synchronous "+
		"(docs/postgres.md, \"Failover\")", why), nil
}
