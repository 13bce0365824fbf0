package mysql

import (
	"context"
	"database/sql"
	"errors"

	"github.com/chronoshq/chronos/ports"
)

// GetState returns the value stored under name, and false when nothing is.
func (s *Store) GetState(ctx context.Context, name string) (ports.State, bool, error) {
	var st ports.State
	err := s.db.QueryRowContext(ctx, `SELECT value, updated_at FROM chronos_state WHERE name = ?`, []byte(name)).
		Scan(&st.Value, &st.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.State{}, false, nil
	}
	if err != nil {
		return ports.State{}, false, mapError(err)
	}
	st.UpdatedAt = st.UpdatedAt.UTC()
	return st, true, nil
}

// PutState stores value under name with updated_at = the store's now, replacing any
// earlier value. REPLACE, as RegisterWorker does: the row is wholly new.
func (s *Store) PutState(ctx context.Context, name, value string) error {
	_, err := s.db.ExecContext(ctx, `REPLACE INTO chronos_state (name, value, updated_at)
		VALUES (?, ?, COALESCE(?, UTC_TIMESTAMP(6)))`, []byte(name), value, s.injectedNow())
	return mapError(err)
}
