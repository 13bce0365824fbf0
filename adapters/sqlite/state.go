package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/chronoshq/chronos/ports"
)

var _ ports.StateStore = (*Store)(nil)

const (
	getStateSQL = `SELECT value, updated_at FROM chronos_state WHERE name = ?1`
	putStateSQL = `INSERT INTO chronos_state (name, value, updated_at) VALUES (?1, ?2, ?3)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`
)

// GetState returns the value stored under name, and false when there is none.
func (s *Store) GetState(ctx context.Context, name string) (ports.State, bool, error) {
	var (
		st ports.State
		at sql.NullInt64
	)
	err := s.reads.getState.QueryRowContext(ctx, name).Scan(&st.Value, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.State{}, false, nil
	}
	if err != nil {
		return ports.State{}, false, mapError(err)
	}
	st.UpdatedAt = fromDB(at)
	return st, true, nil
}

// PutState stores value under name, replacing any, stamped with the store's now.
func (s *Store) PutState(ctx context.Context, name, value string) error {
	_, err := s.stmts.putState.ExecContext(ctx, name, value, toDB(s.now()))
	return mapError(err)
}
