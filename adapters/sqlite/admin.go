package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/chronoshq/chronos/ports"
)

var _ ports.AdminStore = (*Store)(nil)

// DeleteAlarms deletes the alarms with these ids, whatever their status or lease, and
// all their events, in one write transaction (deleteWithEvents, shared with retention).
// A worker still delivering one finds its outcome stale: the fenced UPDATE matches no row.
func (s *Store) DeleteAlarms(ctx context.Context, ids []string) (ports.Deleted, error) {
	if len(ids) > ports.MaxDeleteIDs {
		return ports.Deleted{}, fmt.Errorf("sqlite: delete alarms: %d ids, at most %d a call", len(ids), ports.MaxDeleteIDs)
	}
	if len(ids) == 0 {
		return ports.Deleted{}, nil
	}
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
