package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// errRollback ends a transaction that must write nothing: fn changed nothing, or failed.
var errRollback = errors.New("sqlstore: rolled back")

// Mutate reads the alarm locked (if scope sees it) and the store's now once the lock is held (so a change
// is never stamped earlier than the write it waited for), lets fn decide, and writes the
// transition unfenced with its events: the lock is what makes it safe. A transaction the
// database rolled back as a victim runs again, calling fn again, which the port allows
// because fn is pure. fn's own error comes back as it is.
func (e *Engine[T]) Mutate(ctx context.Context, scope ports.Scope, id string, fn ports.MutateFunc) (domain.Alarm, error) {
	var (
		out   domain.Alarm
		fnErr error
	)
	err := e.Tx(ctx, func(tx DB) error {
		fnErr = nil
		a, now, err := e.LockAlarm(ctx, tx, id)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && !scope.Sees(a.Owner)) {
			return e.notFound("alarm", id) // another owner's: as if unknown
		}
		if err != nil {
			return err
		}
		as := []domain.Alarm{a}
		if err := e.withTags(ctx, tx, as); err != nil {
			return err
		}
		a = as[0]
		t, changed, err := fn(a, now)
		if err != nil {
			fnErr = err
			return errRollback
		}
		if !changed {
			out = a
			return errRollback
		}
		// Never with a Notice: only Decide makes one, for Apply (ports.AlarmStore.Mutate).
		t.AlarmID, t.Fence = a.ID, domain.Fence{}
		if err := e.WriteTransition(ctx, tx, t); err != nil {
			return err
		}
		if d := t.Define; d != nil {
			if _, err := tx.Exec(ctx, e.SQL.Define, d.Label, d.CronExpr, d.Timezone, d.WakeMessage,
				e.PayloadArg(d.Payload), d.MaxFailures, NullText(sqlrow.EncodeSeries(d.Series)), a.ID); err != nil {
				return err
			}
			if err := e.relinkCalendars(ctx, tx, a, d.Series.ExcludeCalendars); err != nil {
				return err
			}
			if err := e.replaceTags(ctx, tx, a, d.Tags); err != nil {
				return err
			}
		}
		out = e.StoredAlarm(t.ApplyTo(a))
		return nil
	})
	switch {
	case fnErr != nil:
		return domain.Alarm{}, fnErr
	case err == nil, errors.Is(err, errRollback):
		return out, nil
	}
	return domain.Alarm{}, e.mapError(err)
}

// NullText is a text argument that is NULL when empty, for the columns where NULL means
// none (claimed_by, idempotency_key, series).
func NullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// StoredTimes is a with every time column as keep cuts it to the store's precision, as
// a read of its row returns them (the series' own times are JSON text, kept whole).
func StoredTimes(a domain.Alarm, keep func(time.Time) time.Time) domain.Alarm {
	for _, t := range a.Times() {
		*t = keep(*t)
	}
	return a
}
