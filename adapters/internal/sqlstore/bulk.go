package sqlstore

import (
	"context"

	"github.com/chronoshq/chronos/domain"
)

// CreateMany inserts as in one transaction with the dialect's bulk statements
// (InsertMany), and their tags; their created events are not stored (domain.CreatedEvent). A taken id
// or idempotency key (stored, or twice in as) fails the whole transaction: ErrConflict,
// nothing written.
func (e *Engine[T]) CreateMany(ctx context.Context, as []domain.Alarm) error {
	if len(as) == 0 {
		return nil
	}
	return e.mapError(e.Tx(ctx, func(tx DB) error {
		if err := e.InsertMany(ctx, tx, as); err != nil {
			return err
		}
		return e.insertTags(ctx, tx, as)
	}))
}

// ImportAlarms is CreateMany, which writes every column of each alarm as given.
func (e *Engine[T]) ImportAlarms(ctx context.Context, as []domain.Alarm) error {
	return e.CreateMany(ctx, as)
}

// ImportEvents appends es, in order, in one transaction (InsertEvents); an event of an
// unknown alarm fails it.
func (e *Engine[T]) ImportEvents(ctx context.Context, es []domain.Event) error {
	if len(es) == 0 {
		return nil
	}
	return e.mapError(e.Tx(ctx, func(tx DB) error { return e.InsertEvents(ctx, tx, es) }))
}
