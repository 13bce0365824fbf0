package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// lockAlarmSQL locks the alarm by id alone (see getSQL); the owner is checked on the row.
const lockAlarmSQL = `SELECT ` + alarmColumns + ` FROM alarms WHERE id = $1 FOR UPDATE`

// mutateNowSQL is read after the row lock is granted: clock_timestamp(), not now(),
// because now() is when the transaction began, possibly before it queued behind a
// dispatcher's write, and the owner's change must not be stamped earlier than the
// change it waited for.
const mutateNowSQL = `SELECT coalesce($1::timestamptz, clock_timestamp())`

// errUnchanged ends a Mutate transaction whose fn changed nothing, rolling it back.
var errUnchanged = errors.New("unchanged")

// defineSQL writes an update's new definition: sqlrow.DefineSet's columns, numbered.
const defineSQL = `UPDATE alarms SET label = $1, cron_expr = $2, timezone = $3, wake_message = $4,
	payload = $5, max_failures = $6, series = $7 WHERE id = $8`

// Mutate runs an owner action on the owner's alarm under its row lock.
func (s *Store) Mutate(ctx context.Context, owner, id string, fn ports.MutateFunc) (domain.Alarm, error) {
	return s.mutate(ctx, ownedBy(owner), id, fn)
}

// mutate runs fn on the alarm with this id, when sc sees it, under its row lock.
func (s *Store) mutate(ctx context.Context, sc ownerScope, id string, fn ports.MutateFunc) (domain.Alarm, error) {
	var result domain.Alarm
	err := withRetry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			// Lock and clock in one round trip; the batch runs them in order, so the
			// clock is read once the lock is held.
			batch := &pgx.Batch{}
			batch.Queue(lockAlarmSQL, id)
			batch.Queue(mutateNowSQL, s.nowArg())
			br := tx.SendBatch(ctx, batch)
			a, err := scanAlarm(br.QueryRow())
			if err == nil && !sc.sees(a.Owner) {
				err = pgx.ErrNoRows // another owner's: as if unknown (the rollback unlocks it)
			}
			if err != nil {
				_ = br.Close()
				if errors.Is(err, pgx.ErrNoRows) {
					return notFound("alarm", id)
				}
				return err
			}
			var now time.Time
			if err := br.QueryRow().Scan(&now); err != nil {
				_ = br.Close()
				return err
			}
			if err := br.Close(); err != nil {
				return err
			}

			t, changed, err := fn(a, now.UTC())
			if err != nil {
				return fnError{err}
			}
			if !changed {
				result = a
				return errUnchanged
			}
			// An owner action is unfenced: the row lock is what makes it safe. It never
			// carries a Notice (only Decide makes one, for Apply; ports.AlarmStore.Mutate).
			t.AlarmID, t.Fence = a.ID, domain.Fence{}
			if _, err := tx.Exec(ctx, applySQL, applyArgs([]domain.Transition{t})...); err != nil {
				return err
			}
			if d := t.Define; d != nil {
				if _, err := tx.Exec(ctx, defineSQL, d.Label, d.CronExpr, d.Timezone, d.WakeMessage,
					payloadArg(d.Payload), d.MaxFailures, textArg(sqlrow.EncodeSeries(d.Series)), a.ID); err != nil {
					return err
				}
			}
			result = truncateAlarm(t.ApplyTo(a))
			return nil
		})
	})
	var fe fnError
	switch {
	case err == nil, errors.Is(err, errUnchanged):
		return result, nil
	case errors.As(err, &fe):
		return domain.Alarm{}, fe.err
	case errors.Is(err, ports.ErrNotFound):
		return domain.Alarm{}, err
	}
	return domain.Alarm{}, mapError(err)
}

// fnError carries the MutateFunc's own error out of the transaction untouched.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }
