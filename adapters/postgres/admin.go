package postgres

import (
	"context"
	"fmt"

	"github.com/chronoshq/chronos/ports"
)

// deleteByIDSQL deletes the named alarms, found in alarms_pkey, whatever their status
// or lease, and returns the ids it deleted (unknown ids are not among them). A row
// locked by a claim, an Apply or a Mutate is waited for; the worker whose lease goes
// with the row finds its outcome stale (Apply finds no row).
const deleteByIDSQL = `DELETE FROM alarms WHERE id = ANY($1::text[]) RETURNING id`

// DeleteAlarms deletes the alarms with these ids and their events, in one transaction:
// the alarm rows first, then the events of the ids deleted, as retention does.
func (s *Store) DeleteAlarms(ctx context.Context, ids []string) (ports.Deleted, error) {
	if len(ids) > ports.MaxDeleteIDs {
		return ports.Deleted{}, fmt.Errorf("postgres: delete alarms: %d ids, at most %d per call", len(ids), ports.MaxDeleteIDs)
	}
	if len(ids) == 0 {
		return ports.Deleted{}, nil
	}
	return s.deleteAlarms(ctx, deleteByIDSQL, ids)
}
