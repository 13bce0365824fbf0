package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/ports"
)

// putStateSQL replaces the named value, stamped with the store's now ($3: the injected
// clock's time, or NULL for the database clock), in one statement, like acquireLeaseSQL.
const putStateSQL = `
INSERT INTO chronos_state (name, value, updated_at) VALUES ($1, $2, coalesce($3::timestamptz, now()))
ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`

const getStateSQL = `SELECT value, updated_at FROM chronos_state WHERE name = $1`

// GetState returns the value stored under name, and false when nothing is.
func (s *Store) GetState(ctx context.Context, name string) (ports.State, bool, error) {
	var (
		st ports.State
		at time.Time
	)
	err := s.pool.QueryRow(ctx, getStateSQL, name).Scan(&st.Value, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return ports.State{}, false, nil
	}
	if err != nil {
		return ports.State{}, false, mapError(err)
	}
	st.UpdatedAt = at.UTC()
	return st, true, nil
}

// PutState stores value under name, replacing any, updated at the store's now.
func (s *Store) PutState(ctx context.Context, name, value string) error {
	_, err := s.pool.Exec(ctx, putStateSQL, name, value, s.nowArg())
	return mapError(err)
}
