package mysql

import (
	"context"
	"database/sql"

	"github.com/chronoshq/chronos/ports"
)

// deleteByIDs is DeleteAlarms' deletion in one READ COMMITTED transaction: a locking
// read of the ids that exist (waiting for a claim or an Apply that holds one), then
// retention's deletion of exactly those, the alarm rows first and their events after.
func (s *Store) deleteByIDs(ctx context.Context, ids []string) (ports.Deleted, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	var d ports.Deleted
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		d = ports.Deleted{}
		rows, err := tx.QueryContext(ctx, `SELECT id FROM alarms WHERE id IN (`+placeholders(len(args))+`) FOR UPDATE`, args...)
		if err != nil {
			return err
		}
		found, err := scanIDs(rows)
		if err != nil || len(found) == 0 {
			return err
		}
		d, err = deleteWithEvents(ctx, tx, found)
		return err
	})
	if err != nil {
		return ports.Deleted{}, mapError(err)
	}
	return d, nil
}
