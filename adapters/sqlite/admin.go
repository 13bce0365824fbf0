package sqlite

import (
	"context"
	"database/sql"

	"github.com/chronoshq/chronos/ports"
)

// deleteByIDs is DeleteAlarms' deletion: deleteWithEvents, shared with retention, in
// one write transaction.
func (s *Store) deleteByIDs(ctx context.Context, ids []string) (ports.Deleted, error) {
	var d ports.Deleted
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		d, err = s.deleteWithEvents(ctx, tx, ids)
		return err
	})
	if err != nil {
		return ports.Deleted{}, err
	}
	return d, nil
}
