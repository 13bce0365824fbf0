package mysql

import (
	"context"
	"database/sql"
	"errors"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Mutate runs an owner action in one READ COMMITTED transaction: lock the owner's row
// (SELECT ... FOR UPDATE), read the store's now after the lock is held (so it is never
// earlier than the write that came before), let fn decide, write the transition
// unfenced with its events, commit. A deadlock victim runs again from the start,
// calling fn again, which the port allows because fn is pure.
func (s *Store) Mutate(ctx context.Context, owner, id string, fn ports.MutateFunc) (domain.Alarm, error) {
	return s.mutate(ctx, ownedBy(owner, id), fn)
}

// mutate is Mutate of the alarm r names.
// defineSQL writes an update's new definition (sqlrow.DefineSet).
const defineSQL = `UPDATE alarms SET ` + sqlrow.DefineSet + ` WHERE id = ?`

func (s *Store) mutate(ctx context.Context, r alarmRef, fn ports.MutateFunc) (domain.Alarm, error) {
	where, args := r.where("")
	var out domain.Alarm
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		a, err := scanAlarm(tx.QueryRowContext(ctx, `SELECT `+alarmColumns+` FROM alarms WHERE `+where+` FOR UPDATE`, args...))
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("alarm", r.id)
		}
		if err != nil {
			return err
		}
		now, err := s.now(ctx, tx)
		if err != nil {
			return err
		}
		t, changed, err := fn(a, now)
		if err != nil {
			return sqlstore.Mapped(err)
		}
		if !changed {
			// Nothing to write: committing releases the lock like a rollback would.
			out = a
			return nil
		}
		t.AlarmID, t.Fence = a.ID, domain.Fence{}
		if err := writeTransitions(ctx, s.batch(tx), []domain.Transition{t}); err != nil {
			return err
		}
		if d := t.Define; d != nil {
			if _, err := tx.ExecContext(ctx, defineSQL, d.Label, d.CronExpr, d.Timezone, d.WakeMessage,
				payloadArg(d.Payload), d.MaxFailures, stringArg(sqlrow.EncodeSeries(d.Series)), a.ID); err != nil {
				return err
			}
		}
		out = storedAlarm(t.ApplyTo(a))
		return nil
	})
	if err != nil {
		return domain.Alarm{}, mapError(err)
	}
	return out, nil
}
