package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var (
	_ ports.Exporter = (*Store)(nil)
	_ ports.Importer = (*Store)(nil)
)

// eventColumnNames are the columns ImportEvents copies; the id is the identity column's.
var eventColumnNames = []string{"alarm_id", "type", "at", "attempt", "scheduled_for", "worker", "message"}

// ImportAlarms is CreateMany, whose COPY writes every column of each alarm as given.
func (s *Store) ImportAlarms(ctx context.Context, as []domain.Alarm) error {
	return s.CreateMany(ctx, as)
}

// ImportEvents copies es in one transaction; COPY takes the rows in order, so the
// identity column numbers them in that order.
func (s *Store) ImportEvents(ctx context.Context, es []domain.Event) error {
	if len(es) == 0 {
		return nil
	}
	return mapError(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"alarm_events"}, eventColumnNames, pgx.CopyFromSlice(len(es), func(i int) ([]any, error) {
			e := es[i]
			return []any{e.AlarmID, string(e.Type), timeArg(e.At), int32(e.Attempt), timeArg(e.ScheduledFor), e.Worker, e.Message}, nil
		}))
		return err
	}))
}
