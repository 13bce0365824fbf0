package sqlite

import (
	"context"
	"database/sql"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var (
	_ ports.Exporter = (*Store)(nil)
	_ ports.Importer = (*Store)(nil)
)

// ImportAlarms is CreateMany, which writes every column of each alarm as given.
func (s *Store) ImportAlarms(ctx context.Context, as []domain.Alarm) error {
	return s.CreateMany(ctx, as)
}

// ImportEvents appends es in one write transaction; the foreign key refuses an event of
// an unknown alarm.
func (s *Store) ImportEvents(ctx context.Context, es []domain.Event) error {
	if len(es) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error { return s.insertEvents(ctx, tx, es) })
}
