package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/chronoshq/chronos/adapters/internal/claims"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// claimSQL chooses and stamps in one statement, inside a BEGIN IMMEDIATE transaction:
// the write lock is held from the choice to the commit, so no other connection or
// process can choose the same rows for this lease. The subquery merges the lanes of
// alarms_lane_due oldest due first (laneArms) and stops after the batch: the batch's
// rows, the leased ones it skips, and one more row per lane, whoever owns the backlog.
var claimSQL = `UPDATE alarms SET claimed_by = ?1, claimed_at = ?2
	WHERE id IN (SELECT id FROM (` + laneArms(`next_fire_at, id`,
	`next_fire_at <= ?2 AND (claimed_at IS NULL OR claimed_at <= ?3)`) + `
		ORDER BY next_fire_at, id
		LIMIT ?4 + 0))
	RETURNING ` + alarmColumns

// ClaimDue leases up to p.Batch due alarms to p.Worker, oldest due first; with p.Fair,
// up to PerLane from each lane in turn.
func (s *Store) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	if err := claims.Check(p); err != nil {
		return ports.Claimed{}, fmt.Errorf("sqlite: %w", err)
	}
	var claimed ports.Claimed
	err := s.writeTurn(ctx, true, func(tx *sql.Tx) error {
		// Now is read once the write lock is held, so time spent waiting for it does
		// not shorten the lease being stamped.
		now := s.now()
		// A lease taken at or before now-lease has run its full length: expired.
		expired := trunc(now.Add(-p.Lease))
		var err error
		claimed, err = claims.Choose(p, func() ([]domain.Alarm, error) {
			rows, err := tx.StmtContext(ctx, s.stmts.claim).QueryContext(ctx, p.Worker, toDB(now), toDB(expired), p.Batch)
			if err != nil {
				return nil, mapError(err)
			}
			alarms, err := scanAlarms(rows)
			return alarms, mapError(err)
		}, func(taken *claims.Taken) ([]domain.Alarm, error) {
			return s.claimFair(ctx, tx, p, now, expired, taken)
		})
		claimed.Now = now
		return err
	})
	if err != nil {
		return ports.Claimed{}, err
	}
	return claimed, nil
}

// extendLeaseSQL moves a lease's claimed_at (sqlstore.Statements.ExtendLease), on the
// row found by primary key and only while it still carries the fence (as the fenced
// apply does).
const extendLeaseSQL = `UPDATE alarms SET claimed_at = ?1 WHERE id = ?2 AND claimed_by = ?3 AND claimed_at = ?4`

// nextDueSQL is the earliest next_fire_at among unleased active alarms: the lanes
// merged in due order (laneArms), stopped at the first row, so each lane is read from
// its oldest entry past its few leased rows in flight. min() of that one row, so that
// no alarm reads as one NULL row.
var nextDueSQL = `SELECT min(next_fire_at) FROM (` + laneArms(`next_fire_at`, `claimed_by IS NULL`) + `
	ORDER BY next_fire_at LIMIT 1)`
