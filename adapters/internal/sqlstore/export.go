package sqlstore

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// ExportAlarms returns the next page of every owner's alarms in id order.
func (e *Engine[T]) ExportAlarms(ctx context.Context, after string, limit int) ([]domain.Alarm, error) {
	rows, err := e.Read.Query(ctx, e.tagged(e.SQL.ExportAlarms, ` ORDER BY r.id`), after, limit)
	if err != nil {
		return nil, e.mapError(err)
	}
	defer rows.Close()
	as, err := e.scanTagged(rows, limit)
	return as, e.mapError(err)
}

// ExportEvents returns the next page of stored events by (alarm id, event id), each
// with its receipt (the attempt log).
func (e *Engine[T]) ExportEvents(ctx context.Context, after ports.EventCursor, through string, limit int) ([]domain.Event, error) {
	evs, err := List(ctx, e.Read, e.scanEventRow, e.SQL.ExportEvents, after.AlarmID, through, after.AlarmID, after.ID, limit)
	return evs, e.mapError(err)
}

// ImportEndpoints inserts es with their own stamps in one transaction: a handful of
// rows, one statement each.
func (e *Engine[T]) ImportEndpoints(ctx context.Context, es []domain.Endpoint) error {
	if len(es) == 0 {
		return nil
	}
	return e.mapError(e.Tx(ctx, func(tx DB) error {
		for _, ep := range es {
			ep = storedEndpoint(ep)
			args := append(sqlrow.EndpointValues(ep), e.TimeArg(ep.CreatedAt), e.TimeArg(ep.UpdatedAt))
			if _, err := tx.Exec(ctx, e.SQL.CreateEndpoint, args...); err != nil {
				return err
			}
		}
		return nil
	}))
}
