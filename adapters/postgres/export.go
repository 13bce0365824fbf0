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

// insertEvents is the engine's InsertEvents: a COPY, which takes the rows in order, so
// the identity column numbers them in that order.
func insertEvents(ctx context.Context, db sqlstore.DB, es []domain.Event) error {
	// The id is the identity column's.
	_, err := db.(pgxDB).q.(pgx.Tx).CopyFrom(ctx, pgx.Identifier{"alarm_events"}, sqlrow.EventRowColumnNames, pgx.CopyFromSlice(len(es), func(i int) ([]any, error) {
		return sqlrow.AppendEventRow(make([]any, 0, sqlrow.EventRowParams), es[i], func(t time.Time) any { return timeArg(t) }), nil
	}))
	return err
}
