package sqlstore

import (
	"context"

	"github.com/chronoshq/chronos/ports"
)

// DeleteAlarms deletes the alarms with these ids, whatever their status or lease, and
// all their events, in one transaction, as retention does: ChooseByIDs takes those that
// exist (where the dialect must lock or find them first), DeleteChosen deletes them. A
// worker still delivering one finds its outcome stale: its fenced update matches no row.
func (e *Engine[T]) DeleteAlarms(ctx context.Context, ids []string) (ports.Deleted, error) {
	if err := ports.CheckDeleteIDs(ids); err != nil {
		return ports.Deleted{}, err
	}
	if len(ids) == 0 {
		return ports.Deleted{}, nil
	}
	return e.deleteChosen(ctx, func(tx DB) ([]string, error) {
		if e.ChooseByIDs == nil {
			return ids, nil
		}
		q, args := e.ChooseByIDs(ids)
		return List(ctx, tx, scanID, q, args...)
	})
}
