package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var _ ports.BulkCreator = (*Store)(nil)

// alarmColumnNames is alarmColumns as the list CopyFrom takes.
var alarmColumnNames = func() []string {
	names := strings.Split(alarmColumns, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}()

// insertMany is the engine's InsertMany: a COPY, whose binary protocol streams rows
// without a statement per row, so a load costs what the server needs to write it. A
// taken id or idempotency key is a unique violation that aborts the COPY.
func (s *Store) insertMany(ctx context.Context, db sqlstore.DB, as []domain.Alarm) error {
	_, err := db.(pgxDB).q.(pgx.Tx).CopyFrom(ctx, pgx.Identifier{"alarms"}, alarmColumnNames, pgx.CopyFromSlice(len(as), func(i int) ([]any, error) {
		return s.AlarmArgs(as[i]), nil
	}))
	return err
}
