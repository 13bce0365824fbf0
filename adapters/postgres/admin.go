package postgres

import (
	"context"

	"github.com/chronoshq/chronos/ports"
)

// deleteByIDSQL deletes the named alarms, found in alarms_pkey, whatever their status
// or lease, and returns the ids it deleted (unknown ids are not among them). A row
// locked by a claim, an Apply or a Mutate is waited for; the worker whose lease goes
// with the row finds its outcome stale (Apply finds no row).
const deleteByIDSQL = `DELETE FROM alarms WHERE id = ANY($1::text[]) RETURNING id`

// deleteByIDs is DeleteAlarms' deletion: the alarm rows first, then the events of the
// ids deleted, as retention does.
func (s *Store) deleteByIDs(ctx context.Context, ids []string) (ports.Deleted, error) {
	return s.deleteAlarms(ctx, deleteByIDSQL, ids)
}
