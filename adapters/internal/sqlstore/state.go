package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/chronoshq/chronos/ports"
)

// GetState returns the value stored under name, and false when there is none.
func (e *Engine[T]) GetState(ctx context.Context, name string) (ports.State, bool, error) {
	var (
		st ports.State
		at T
	)
	err := e.Read.QueryRow(ctx, e.SQL.GetState, name).Scan(&st.Value, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.State{}, false, nil
	}
	if err != nil {
		return ports.State{}, false, e.mapError(err)
	}
	st.UpdatedAt = e.ToTime(at)
	return st, true, nil
}

// SwapState stores value under name if old is stored there ("" : nothing is): a
// conditional update, or an insert that a concurrent one's primary key refuses.
func (e *Engine[T]) SwapState(ctx context.Context, name, old, value string) (bool, error) {
	if old == "" {
		_, err := e.Write.Exec(ctx, e.SQL.InsertState, name, value, e.NowArg())
		if err = e.mapError(err); errors.Is(err, ports.ErrConflict) {
			return false, nil
		}
		return err == nil, err
	}
	n, err := e.Write.Exec(ctx, e.SQL.SwapState, value, e.NowArg(), name, old)
	return err == nil && n == 1, e.mapError(err)
}

// PutState stores value under name, replacing any, stamped with the store's now.
func (e *Engine[T]) PutState(ctx context.Context, name, value string) error {
	_, err := e.Write.Exec(ctx, e.SQL.PutState, name, value, e.NowArg())
	return e.mapError(err)
}
