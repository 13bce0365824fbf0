package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var _ ports.AdminStore = (*Store)(nil)

// AdminGet is Get of whoever owns the alarm.
func (s *Store) AdminGet(ctx context.Context, id string) (domain.Alarm, error) {
	return s.get(ctx, id, anyOwner)
}

// AdminEvents is Events of whoever owns the alarm.
func (s *Store) AdminEvents(ctx context.Context, id string, limit int) ([]domain.Event, error) {
	return s.events(ctx, id, anyOwner, limit)
}

// AdminMutate is Mutate of whoever owns the alarm: the same read, decision and unfenced
// write under the write lock.
func (s *Store) AdminMutate(ctx context.Context, id string, fn ports.MutateFunc) (domain.Alarm, error) {
	return s.mutate(ctx, id, anyOwner, fn)
}

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
