package sqlstore

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
)

// CreateMany inserts as in one transaction with the dialect's bulk statements
// (InsertMany), and their tags; their created events are not stored (domain.CreatedEvent). A taken id
// or idempotency key (stored, or twice in as) fails the whole transaction: ErrConflict,
// nothing written. The series that name calendars are indexed under them in the same
// transaction (one more statement when any does).
func (e *Engine[T]) CreateMany(ctx context.Context, as []domain.Alarm) error {
	if len(as) == 0 {
		return nil
	}
	var links [][3]string
	for _, a := range as {
		links = sqlrow.CalendarLinks(a.Owner, a.ID, a.Series.ExcludeCalendars, links)
	}
	return e.mapError(e.Tx(ctx, func(tx DB) error {
		if err := e.InsertMany(ctx, tx, as); err != nil {
			return err
		}
		if err := e.insertTags(ctx, tx, as); err != nil {
			return err
		}
		return e.linkCalendars(ctx, tx, links)
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
