package mysql

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

// ImportAlarms is CreateMany, whose INSERTs write every column of each alarm as given.
func (s *Store) ImportAlarms(ctx context.Context, as []domain.Alarm) error {
	return s.CreateMany(ctx, as)
}

// ImportEvents appends es, in order, in one transaction (AUTO_INCREMENT numbers a
// multi-row INSERT's rows in the order they are listed).
func (s *Store) ImportEvents(ctx context.Context, es []domain.Event) error {
	if len(es) == 0 {
		return nil
	}
	defer s.stmts.prepareQueued(ctx) // once no transaction is open
	return mapError(s.inTx(ctx, func(tx *sql.Tx) error {
		return insertEvents(ctx, s.batch(tx), es)
	}))
}
