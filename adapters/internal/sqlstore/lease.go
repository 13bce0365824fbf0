package sqlstore

import (
	"context"
	"fmt"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// ExtendLease keeps p.AlarmID leased until now + p.For, fenced on p.Fence, in one
// transaction: the store's now is read in it, as a claim reads it, and the new
// claimed_at computed here at the store's precision and returned as stored, since it
// is the new fence.
func (e *Engine[T]) ExtendLease(ctx context.Context, p ports.ExtendLease) (domain.Fence, error) {
	var f domain.Fence
	err := e.Tx(ctx, func(tx DB) error {
		now, err := e.Now(ctx, tx)
		if err != nil {
			return err
		}
		at := e.Keep(now.Add(p.For - p.Lease))
		n, err := tx.Exec(ctx, e.SQL.ExtendLease, e.TimeArg(at), p.AlarmID, NullText(p.Fence.Worker), e.TimeArg(p.Fence.ClaimedAt))
		if err != nil {
			return err
		}
		if n == 0 {
			return Mapped(fmt.Errorf("%s: extend lease of alarm %q: %w", e.Name, p.AlarmID, ports.ErrLeaseLost))
		}
		f = domain.Fence{Worker: p.Fence.Worker, ClaimedAt: at}
		return nil
	})
	return f, e.mapError(err)
}
