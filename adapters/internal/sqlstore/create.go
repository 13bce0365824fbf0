package sqlstore

import (
	"context"
	"fmt"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// OwnerKey is an owner's idempotency key.
type OwnerKey struct{ Owner, Key string }

// CreateBatch creates many alarms in one transaction, each idempotent on its own key
// (ports.AlarmStore.CreateBatch): the dialect's InsertBatch inserts the batch with its
// tuned statements, skipping each item whose id or key is taken, and the engine answers
// for each item. A skipped item with a key dedupes to the key's alarm: one of the batch
// (no read), or one stored before, read once for every such key (AlarmsByKey).
func (e *Engine[T]) CreateBatch(ctx context.Context, as []domain.Alarm) ([]ports.CreateResult, error) {
	out := make([]ports.CreateResult, len(as))
	if len(as) == 0 {
		return out, nil
	}
	stored := make([]domain.Alarm, len(as))
	for i, a := range as {
		stored[i] = e.StoredAlarm(a)
		stored[i].Debounce = nil // asks, never stored: as[i] keeps it
	}
	err := e.Tx(ctx, func(tx DB) error {
		inserted, found, err := e.InsertBatch(ctx, tx, stored)
		if err != nil {
			return err
		}
		var links [][3]string
		for _, a := range stored {
			if inserted[a.ID] && a.IdempotencyKey != "" {
				found = append(found, a)
			}
			if inserted[a.ID] {
				links = sqlrow.CalendarLinks(a.Owner, a.ID, a.Series.ExcludeCalendars, links)
			}
		}
		if err := e.linkCalendars(ctx, tx, links); err != nil {
			return err
		}
		twins := make(map[OwnerKey]domain.Alarm, len(found))
		for _, a := range found {
			twins[OwnerKey{a.Owner, a.IdempotencyKey}] = a
		}
		if e.AlarmsByKey != nil {
			if err := e.readTwins(ctx, tx, stored, inserted, twins); err != nil {
				return err
			}
		}
		for i, a := range stored {
			if d := as[i].Debounce; d != nil && !inserted[a.ID] {
				if out[i], err = e.debounce(ctx, tx, a, d, twins); err != nil {
					return err
				}
				continue
			}
			out[i] = e.createResult(a, inserted[a.ID], twins)
		}
		return e.tagsOfBatch(ctx, tx, out)
	})
	if err != nil {
		return nil, e.mapError(err)
	}
	return out, nil
}

// readTwins adds to twins the stored alarms of the keys of the items of as that were
// not inserted, those not in twins yet, read in one AlarmsByKey.
func (e *Engine[T]) readTwins(ctx context.Context, tx DB, as []domain.Alarm, inserted map[string]bool, twins map[OwnerKey]domain.Alarm) error {
	var keys []OwnerKey
	asked := map[OwnerKey]bool{}
	for _, a := range as {
		k := OwnerKey{a.Owner, a.IdempotencyKey}
		if _, ok := twins[k]; !ok && !asked[k] && a.IdempotencyKey != "" && !inserted[a.ID] {
			asked[k] = true
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	found, err := e.AlarmsByKey(ctx, tx, keys)
	for _, a := range found {
		twins[OwnerKey{a.Owner, a.IdempotencyKey}] = a
	}
	return err
}

// createResult is an item's answer: created when its row was inserted, else deduped to
// the alarm of its key, else ErrConflict.
func (e *Engine[T]) createResult(a domain.Alarm, inserted bool, twins map[OwnerKey]domain.Alarm) ports.CreateResult {
	twin, keyed := twins[OwnerKey{a.Owner, a.IdempotencyKey}]
	switch {
	case inserted:
		return ports.CreateResult{Alarm: a}
	case keyed && a.IdempotencyKey != "":
		return ports.CreateResult{Alarm: twin, Deduped: true}
	case a.IdempotencyKey == "":
		return ports.CreateResult{Err: fmt.Errorf("%s: alarm id %q exists: %w", e.Name, a.ID, ports.ErrConflict)}
	}
	// Skipped, and no alarm has its key: its id is taken, or the key's alarm was
	// deleted between the skip and the read (retention); the client may retry.
	return ports.CreateResult{Err: fmt.Errorf("%s: alarm id %q exists, or the alarm of idempotency key %q vanished: %w",
		e.Name, a.ID, a.IdempotencyKey, ports.ErrConflict)}
}

// AlarmArgs are a's values in sqlrow.AlarmColumns order, as the dialect binds them,
// and its lane last where the dialect has a LaneArg.
func (e *Engine[T]) AlarmArgs(a domain.Alarm) []any {
	args := append(make([]any, 0, sqlrow.AlarmParams+1), a.ID, a.Owner, a.Label, string(a.Kind), e.TimeArg(a.FireAt), a.CronExpr, a.Timezone,
		e.TimeArg(a.NextFireAt), e.TimeArg(a.ScheduledFor), a.ConversationID, a.WakeMessage,
		e.PayloadArg(a.Payload), string(a.Status), string(a.Delivery), e.keyArg(a.IdempotencyKey),
		a.MaxFailures, a.FailureCount, a.LastError, NullText(a.ClaimedBy), e.TimeArg(a.ClaimedAt),
		e.TimeArg(a.CreatedAt), e.TimeArg(a.UpdatedAt), e.TimeArg(a.LastFiredAt),
		NullText(sqlrow.EncodeSeries(a.Series)), a.FireCount, a.SkipStreak, a.PausedReason, e.TimeArg(a.PausedUntil),
		a.Endpoint, NullText(a.TraceParent), NullText(a.TraceState))
	if e.LaneArg != nil {
		args = append(args, e.LaneArg(a.Owner))
	}
	return args
}

// keyArg is an idempotency key as the column keeps it: NULL for none where NullKeys.
func (e *Engine[T]) keyArg(key string) any {
	if e.NullKeys {
		return NullText(key)
	}
	return key
}
