package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// defineSQL writes an update's new definition (sqlrow.DefineSet).
const defineSQL = `UPDATE alarms SET ` + sqlrow.DefineSet + ` WHERE id = ?`

// Mutate reads the owner's alarm, lets fn decide, and applies the transition, all under
// the write lock (BEGIN IMMEDIATE), so no claim or other action interleaves. The
// transition is applied unfenced, to the alarm read, and fn's errors come back as is.
func (s *Store) Mutate(ctx context.Context, owner, id string, fn ports.MutateFunc) (domain.Alarm, error) {
	return s.mutate(ctx, id, ofOwner(owner), fn)
}

// mutate is Mutate of the alarm with id, if owner (NULL: any) owns it.
func (s *Store) mutate(ctx context.Context, id string, owner sql.NullString, fn ports.MutateFunc) (domain.Alarm, error) {
	var out domain.Alarm
	err := s.write(ctx, func(tx *sql.Tx) error {
		a, err := scanAlarm(tx.QueryRowContext(ctx, byIDSQL, id, owner))
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("alarm", id)
		}
		if err != nil {
			return mapError(err)
		}
		t, changed, err := fn(a, s.now())
		if err != nil {
			return err
		}
		if !changed {
			out = a
			return nil
		}
		t = storedTransition(t)
		t.AlarmID, t.Fence = a.ID, domain.Fence{} // never with a Notice: only Decide makes one (ports.AlarmStore.Mutate)
		ok, err := applyTransition(ctx, tx.StmtContext(ctx, s.stmts.applyUnfenced), t)
		if err != nil {
			return err
		}
		if !ok { // impossible while we hold the write lock; refuse rather than guess
			return fmt.Errorf("sqlite: alarm %q vanished during an update under the write lock", a.ID)
		}
		if d := t.Define; d != nil {
			if _, err := tx.ExecContext(ctx, defineSQL, d.Label, d.CronExpr, d.Timezone, d.WakeMessage,
				payloadBytes(d.Payload), d.MaxFailures, nullString(sqlrow.EncodeSeries(d.Series)), a.ID); err != nil {
				return mapError(err)
			}
		}
		if err := s.insertEvents(ctx, tx, t.Events); err != nil {
			return err
		}
		out = t.ApplyTo(a)
		return nil
	})
	if err != nil {
		return domain.Alarm{}, err
	}
	return out, nil
}
