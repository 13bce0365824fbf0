package sqlite

import (
	"context"
	"database/sql"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var _ ports.BulkCreator = (*Store)(nil)

// alarmsPerInsert keeps one multi-row INSERT of sqlrow.AlarmParams (29) variables a row
// far below SQLite's limit of 32766 bound variables.
const alarmsPerInsert = 500

// CreateMany inserts as with multi-row INSERTs in one write transaction (their created
// events are not stored: domain.CreatedEvent). A taken id or idempotency key (stored, or twice in as) fails the
// INSERT, which rolls everything back: ErrConflict, nothing written.
func (s *Store) CreateMany(ctx context.Context, as []domain.Alarm) error {
	if len(as) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		for rest := as; len(rest) > 0; {
			n := min(len(rest), alarmsPerInsert)
			chunk := make([]domain.Alarm, n)
			for i, a := range rest[:n] {
				chunk[i] = storedAlarm(a)
			}
			if err := insertAlarms(ctx, tx, chunk); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	})
}

// insertAlarms writes as (already at the store's precision) in one INSERT.
func insertAlarms(ctx context.Context, tx *sql.Tx, as []domain.Alarm) error {
	args := make([]any, 0, sqlrow.AlarmParams*len(as))
	for _, a := range as {
		args = append(args, alarmArgs(a)...)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO alarms (`+alarmColumns+`) VALUES `+valuesRows(len(as), sqlrow.AlarmParams), args...)
	return mapError(err)
}
