package sqlstore

import (
	"context"
	"fmt"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// debounceRounds bounds the attempts of one debounced item. A round fails only when
// another transaction changed the key's alarm between this one's read and its write
// (claimed it, replaced it into a new alarm, passed the key on), so a few rounds settle
// even a crowd of racing creates: they queue on the key's row lock or unique index.
const debounceRounds = 8

// debounce settles a, an item of CreateBatch with a Debounce that the batch's insert
// skipped, against twins, the alarms of the batch's keys as read so far (kept current
// for the items that follow), as domain.OnRepeat decides:
//
//   - no alarm of its key: its id was taken (createResult's ErrConflict);
//   - a series': deduped, as without a Debounce;
//   - an active, unleased once alarm: replaced by ReplaceAlarm, one write conditional on
//     it still being so, with its replaced event;
//   - any other once alarm (fired, ended, being delivered): ReleaseKey takes its key
//     (with a key_released event) and a is inserted alone, as the key's next alarm.
//
// A conditional write that matched nothing, or an insert another transaction's alarm of
// the key beat, means the key's alarm changed: it is read again (by an insert of a
// alone, which also takes a key that has none) and the next round decides on it. The
// unique index on (owner, idempotency_key) keeps the key on one alarm throughout.
func (e *Engine[T]) debounce(ctx context.Context, tx DB, a domain.Alarm, d *domain.Debounce, twins map[OwnerKey]domain.Alarm) (ports.CreateResult, error) {
	k := OwnerKey{a.Owner, a.IdempotencyKey}
	r := a
	r.Debounce = d
	for range debounceRounds {
		twin, ok := twins[k]
		if !ok {
			return e.createResult(a, false, twins), nil
		}
		switch domain.OnRepeat(twin, r) {
		case domain.RepeatReturns:
			return ports.CreateResult{Alarm: twin, Deduped: true}, nil
		case domain.RepeatReplaces:
			p := domain.Replace(twin, r)
			n, err := tx.Exec(ctx, e.SQL.ReplaceAlarm, e.TimeArg(p.FireAt), e.TimeArg(p.FireAt), e.TimeArg(p.FireAt),
				e.PayloadArg(p.Payload), p.Label, p.WakeMessage, e.TimeArg(p.UpdatedAt), twin.ID)
			if err != nil {
				return ports.CreateResult{}, err
			}
			if n == 1 {
				if err := e.InsertEvents(ctx, tx, []domain.Event{p.Event}); err != nil {
					return ports.CreateResult{}, err
				}
				twins[k] = e.StoredAlarm(p.ApplyTo(twin))
				return ports.CreateResult{Alarm: twins[k], Replaced: true}, nil
			}
		case domain.RepeatTakesKey:
			n, err := tx.Exec(ctx, e.SQL.ReleaseKey, e.keyArg(""), twin.ID, e.keyArg(k.Key))
			if err != nil {
				return ports.CreateResult{}, err
			}
			if n == 1 {
				if err := e.InsertEvents(ctx, tx, []domain.Event{domain.KeyReleased(twin, a)}); err != nil {
					return ports.CreateResult{}, err
				}
			}
		}
		inserted, err := e.insertOrRead(ctx, tx, a, twins)
		if err != nil || inserted {
			return ports.CreateResult{Alarm: a}, err
		}
	}
	return ports.CreateResult{Err: fmt.Errorf("%s: idempotency key %q: its alarm kept changing under %d replaces: %w",
		e.Name, a.IdempotencyKey, debounceRounds, ports.ErrConflict)}, nil
}

// insertOrRead inserts a alone (the dialect's InsertBatch) and, when its key is taken,
// puts the key's alarm as it now stands in twins (none: the key's alarm vanished, or
// a's id is taken).
func (e *Engine[T]) insertOrRead(ctx context.Context, tx DB, a domain.Alarm, twins map[OwnerKey]domain.Alarm) (bool, error) {
	k := OwnerKey{a.Owner, a.IdempotencyKey}
	delete(twins, k)
	inserted, found, err := e.InsertBatch(ctx, tx, []domain.Alarm{a})
	if err != nil || inserted[a.ID] {
		if err == nil {
			twins[k] = a
		}
		return err == nil, err
	}
	for _, f := range found {
		twins[OwnerKey{f.Owner, f.IdempotencyKey}] = f
	}
	if e.AlarmsByKey == nil {
		return false, nil
	}
	return false, e.readTwins(ctx, tx, []domain.Alarm{a}, inserted, twins)
}
