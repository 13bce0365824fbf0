package sqlite

import (
	"context"
	"slices"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// The engine's bulk writes and export over this store's statements.
var _ interface {
	ports.BulkCreator
	ports.Exporter
	ports.Importer
} = (*Store)(nil)

// alarmsPerInsert keeps one multi-row INSERT of alarmParams (32) variables a row
// far below SQLite's limit of 32766 bound variables.
const alarmsPerInsert = 500

// insertMany is the engine's InsertMany: multi-row INSERTs of alarmsPerInsert alarms.
func (s *Store) insertMany(ctx context.Context, tx sqlstore.DB, as []domain.Alarm) error {
	for chunk := range slices.Chunk(as, alarmsPerInsert) {
		args := make([]any, 0, alarmParams*len(chunk))
		for _, a := range chunk {
			args = append(args, s.AlarmArgs(a)...)
		}
		if _, err := tx.Exec(ctx, insertAlarmsSQL(len(chunk), ``), args...); err != nil {
			return err
		}
	}
	return nil
}
