package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/claims"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// claimWalkFactor is how many times its share a take's non-locking walk chooses
// (laneTakeSQL), so concurrent claimers walking one head do not split a share; the walk
// must not lock (docs/mysql.md, "Why the walk does not lock, and walks two shares").
const claimWalkFactor = 2

// ClaimDue leases up to p.Batch due alarms to p.Worker, shared between the lanes that
// have due alarms (lockShared); with p.Fair, up to PerLane from each lane in turn
// (lockFair).
//
// One READ COMMITTED transaction: read the clock (database or injected) once, so the
// due test, the lease-expiry test, the stamp and Claimed.Now are one instant; choose and
// lock the batch (laneTakeSQL); stamp the lease on exactly those ids; commit. SKIP LOCKED
// makes concurrent claimers (goroutines or nodes) take disjoint rows without waiting on
// each other; one whose walk chose only rows others have just locked gets fewer (or
// none) and the dispatcher claims again. A deadlock victim is run again from the start (see
// inTx).
func (s *Store) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	if err := claims.Check(p); err != nil {
		return ports.Claimed{}, fmt.Errorf("mysql: %w", err)
	}
	if p.Batch <= 0 {
		return ports.Claimed{}, errors.New("mysql: claim: batch must be positive")
	}
	var out ports.Claimed
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		now, err := s.now(ctx, tx)
		if err != nil {
			return err
		}
		expired := micro(now.Add(-p.Lease))
		out, err = claims.Choose(p, func() ([]domain.Alarm, error) {
			return s.lockShared(ctx, tx, now, expired, p.Batch, p.Worker)
		}, func(taken *claims.Taken) ([]domain.Alarm, error) {
			alarms, err := s.lockFair(ctx, tx, now, expired, p.Batch, *p.Fair, taken)
			if err != nil {
				return nil, err
			}
			return alarms, stampLease(ctx, s.batch(tx), alarms, p.Worker, now)
		})
		out.Now = now
		return err
	})
	if err != nil {
		return ports.Claimed{}, mapError(err)
	}
	s.stmts.prepareQueued(ctx)
	return out, nil
}

// stampLease leases the locked alarms to worker at now, in the table and in alarms.
func stampLease(ctx context.Context, tx batchTx, alarms []domain.Alarm, worker string, now time.Time) error {
	if len(alarms) == 0 {
		return nil
	}
	ids := make([]string, len(alarms))
	for i, a := range alarms {
		ids[i] = a.ID
	}
	idArgs, marks := paddedIn(ids)
	res, err := tx.exec(ctx,
		`UPDATE alarms SET claimed_by = ?, claimed_at = ? WHERE id IN (`+marks+`)`, append([]any{worker, now}, idArgs...)...)
	if err != nil {
		return err
	}
	// The rows are locked by this transaction, so every one must match.
	if n, err := res.RowsAffected(); err != nil || n != int64(len(alarms)) {
		return fmt.Errorf("claim: stamped %d of %d locked rows (%v)", n, len(alarms), err)
	}
	for i := range alarms {
		alarms[i].ClaimedBy, alarms[i].ClaimedAt = worker, now
	}
	return nil
}

// extendLeaseSQL moves a lease's claimed_at (sqlstore.Statements.ExtendLease), on the
// row found by primary key and only while it still carries the fence, as Apply's fenced
// UPDATE does. With clientFoundRows it counts the row even when the new value equals
// the old. There is no RETURNING: the engine computes the new claimed_at, at the
// store's precision, which DATETIME(6) keeps exactly.
const extendLeaseSQL = `UPDATE alarms SET claimed_at = ? WHERE id = ? AND claimed_by = ? AND claimed_at = ?`

// nextDueSQL is the least of each lane's first unleased active entry of
// alarms_lane_due: 64 parts, each an ordered walk of one lane from its oldest entry that
// stops at the first unleased row (claimed_by is not in the index, so MIN() of a lane
// would read every active alarm of it). Each part stops at its LIMIT 1, so running all
// of them to the end, as MariaDB does, is 64 dives and the leased rows in flight.
var nextDueSQL = func() string {
	parts := make([]string, ports.Lanes)
	for l := range parts {
		parts[l] = fmt.Sprintf(`(SELECT next_fire_at FROM alarms FORCE INDEX (alarms_lane_due)
		WHERE status = 'active' AND lane = %d AND claimed_by IS NULL
		ORDER BY next_fire_at LIMIT 1)`, l)
	}
	return `SELECT MIN(next_fire_at) FROM (` + strings.Join(parts, "\nUNION ALL ") + `) heads`
}()
