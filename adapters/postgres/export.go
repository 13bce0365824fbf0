package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var _ interface {
	ports.Exporter
	ports.Importer
} = (*Store)(nil)

// eventColumnNames are the columns ImportEvents copies; the id is the identity column's.
var eventColumnNames = []string{"alarm_id", "type", "at", "attempt", "scheduled_for", "worker", "message",
	"duration_us", "http_status", "response_type", "response_body", "response_truncated"}

// insertEvents is the engine's InsertEvents: a COPY, which takes the rows in order, so
// the identity column numbers them in that order.
func insertEvents(ctx context.Context, db sqlstore.DB, es []domain.Event) error {
	_, err := db.(pgxDB).q.(pgx.Tx).CopyFrom(ctx, pgx.Identifier{"alarm_events"}, eventColumnNames, pgx.CopyFromSlice(len(es), func(i int) ([]any, error) {
		row := sqlrow.AppendEvent(make([]any, 0, sqlrow.EventParams+sqlrow.ReceiptParams), es[i], func(t time.Time) any { return timeArg(t) })
		return sqlrow.AppendReceipt(row, es[i].Receipt), nil
	}))
	return err
}
