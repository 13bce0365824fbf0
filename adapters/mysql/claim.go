package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// claimSelectSQL chooses and locks the batch. It walks alarms_due (status,
// next_fire_at) from the oldest due entry, skips rows another transaction holds (a
// concurrent claimer, or an Apply in progress) and stops after the batch, so its cost
// is the batch plus the leased rows at the head of the range, never the table.
//
// It selects every column, not just the id: InnoDB reads the clustered row to lock it
// and to test claimed_at anyway, and the rows stay locked until commit, so what it
// returns plus the lease the UPDATE stamps is exactly what the table then holds. That
// saves the read-back PostgreSQL gets from RETURNING and MySQL has no equivalent for.
//
// ORDER BY ends with id so ties are broken the same way by every claimer; InnoDB
// secondary index entries end with the primary key, so the order is still the index's
// and no sort is needed (docs/mysql.md has the EXPLAIN).
const claimSelectSQL = `SELECT ` + alarmColumns + ` FROM alarms
	WHERE status = 'active' AND next_fire_at <= ? AND (claimed_at IS NULL OR claimed_at <= ?)
	ORDER BY next_fire_at, id
	LIMIT ?
	FOR UPDATE SKIP LOCKED`

// ClaimDue leases up to p.Batch due alarms to p.Worker, oldest due first.
//
// One READ COMMITTED transaction: read the clock (database or injected) once, so the
// due test, the lease-expiry test, the stamp and Claimed.Now are one instant; choose and
// lock the rows; stamp the lease on exactly those ids; commit. SKIP LOCKED makes
// concurrent claimers (goroutines or nodes) take disjoint rows without waiting on each
// other. A deadlock victim is run again from the start (see inTx).
func (s *Store) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	if p.Worker == "" {
		return ports.Claimed{}, errors.New("mysql: claim: worker is required")
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
		rows, err := tx.QueryContext(ctx, claimSelectSQL, now, micro(now.Add(-p.Lease)), p.Batch)
		if err != nil {
			return err
		}
		alarms, err := scanAlarms(rows)
		if err != nil {
			return err
		}
		if err := stampLease(ctx, tx, alarms, p.Worker, now); err != nil {
			return err
		}
		if alarms == nil {
			alarms = []domain.Alarm{}
		}
		out = ports.Claimed{Alarms: alarms, Now: now}
		return nil
	})
	if err != nil {
		return ports.Claimed{}, mapError(ctx, err)
	}
	return out, nil
}

// stampLease leases the locked alarms to worker at now, in the table and in alarms.
func stampLease(ctx context.Context, tx *sql.Tx, alarms []domain.Alarm, worker string, now time.Time) error {
	if len(alarms) == 0 {
		return nil
	}
	args := make([]any, 0, 2+len(alarms))
	args = append(args, worker, now)
	for _, a := range alarms {
		args = append(args, a.ID)
	}
	res, err := tx.ExecContext(ctx,
		`UPDATE alarms SET claimed_by = ?, claimed_at = ? WHERE id IN (`+placeholders(len(alarms))+`)`, args...)
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

// nextDueSQL reads the first unleased entry of alarms_due. ORDER BY ... LIMIT 1 rather
// than MIN(): claimed_by is not in the index, and the ordered form stops at the first
// unleased row instead of scanning every active one.
const nextDueSQL = `SELECT next_fire_at FROM alarms
	WHERE status = 'active' AND claimed_by IS NULL
	ORDER BY next_fire_at
	LIMIT 1`

// NextDue returns the earliest next_fire_at among unleased active alarms.
func (s *Store) NextDue(ctx context.Context) (time.Time, bool, error) {
	var at time.Time
	err := s.db.QueryRowContext(ctx, nextDueSQL).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, mapError(ctx, err)
	}
	return at.UTC(), true, nil
}
