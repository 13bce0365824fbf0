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

// PutState stores value under name, replacing any, stamped with the store's now.
func (e *Engine[T]) PutState(ctx context.Context, name, value string) error {
	_, err := e.Write.Exec(ctx, e.SQL.PutState, name, value, e.NowArg())
	return e.mapError(err)
}
