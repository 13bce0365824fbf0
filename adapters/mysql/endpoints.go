package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var _ ports.EndpointStore = (*Store)(nil)

const endpointColumns = sqlrow.EndpointColumns

// Endpoints are a handful of rows written by admins now and then; MySQL has no
// RETURNING, so a write reads the store's now first and returns what it wrote (an
// update, under the row's lock, with the created_at it read).
var createEndpointSQL = `INSERT INTO endpoints (` + endpointColumns + `) VALUES (` + placeholders(sqlrow.EndpointParams) + `)`

const (
	getEndpointSQL = `SELECT ` + endpointColumns + ` FROM endpoints WHERE owner = ? AND name = ?`
	// lockEndpointSQL reads the row UpdateEndpoint replaces, locked until it commits.
	lockEndpointSQL   = getEndpointSQL + ` FOR UPDATE`
	listEndpointsSQL  = `SELECT ` + endpointColumns + ` FROM endpoints WHERE owner = ? ORDER BY name`
	deleteEndpointSQL = `DELETE FROM endpoints WHERE owner = ? AND name = ?`
	updateEndpointSQL = `UPDATE endpoints SET url = ?, secrets = ?, timeout_ms = ?, max_in_flight = ?,
		rate_per_second = ?, failure_url = ?, updated_at = ? WHERE owner = ? AND name = ?`
)

// CreateEndpoint stores e, stamped with the store's now. A taken (owner, name) is a
// duplicate key: ErrConflict.
func (s *Store) CreateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	now, err := s.now(ctx, s.db)
	if err != nil {
		return domain.Endpoint{}, mapError(err)
	}
	e = storedEndpoint(e)
	e.CreatedAt, e.UpdatedAt = now, now
	if _, err := s.db.ExecContext(ctx, createEndpointSQL, append(sqlrow.EndpointValues(e), now, now)...); err != nil {
		return domain.Endpoint{}, mapError(err)
	}
	return e, nil
}

// GetEndpoint returns the owner's endpoint.
func (s *Store) GetEndpoint(ctx context.Context, owner, name string) (domain.Endpoint, error) {
	return endpointRow(s.db.QueryRowContext(ctx, getEndpointSQL, owner, name), owner, name)
}

// ListEndpoints returns the owner's endpoints by name, or every owner's by owner, then
// name.
func (s *Store) ListEndpoints(ctx context.Context, owner string) ([]domain.Endpoint, error) {
	q, args := listEndpointsSQL, []any{owner}
	if owner == "" {
		q, args = sqlrow.ListAllEndpointsSQL, nil
	}
	es, err := sqlrow.Query(ctx, s.db, scanEndpoint, q, args...)
	return es, mapError(err)
}

// UpdateEndpoint replaces the owner's endpoint but its CreatedAt, stamping UpdatedAt.
func (s *Store) UpdateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	var stored domain.Endpoint
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		old, err := scanEndpoint(tx.QueryRowContext(ctx, lockEndpointSQL, e.Owner, e.Name))
		if errors.Is(err, sql.ErrNoRows) {
			return endpointNotFound(e.Owner, e.Name)
		}
		if err != nil {
			return err
		}
		now, err := s.now(ctx, tx)
		if err != nil {
			return err
		}
		stored = storedEndpoint(e)
		stored.CreatedAt, stored.UpdatedAt = old.CreatedAt, now
		v := sqlrow.EndpointValues(stored)
		_, err = tx.ExecContext(ctx, updateEndpointSQL, append(v[2:], now, e.Owner, e.Name)...)
		return err
	})
	if err != nil {
		return domain.Endpoint{}, mapError(err)
	}
	return stored, nil
}

// DeleteEndpoint removes the owner's endpoint.
func (s *Store) DeleteEndpoint(ctx context.Context, owner, name string) error {
	n, err := sqlrow.Affected(s.db.ExecContext(ctx, deleteEndpointSQL, owner, name))
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return endpointNotFound(owner, name)
	}
	return nil
}

// storedEndpoint is e as the row keeps it: its timeout in whole milliseconds, and a
// copy of its secrets, so the caller's slice and the result are not one.
func storedEndpoint(e domain.Endpoint) domain.Endpoint {
	e.Timeout = e.Timeout.Truncate(time.Millisecond)
	e.Secrets = append([]string(nil), e.Secrets...)
	return e
}

// endpointRow reads the one endpoint row r returns, naming owner/name when there is none.
func endpointRow(r *sql.Row, owner, name string) (domain.Endpoint, error) {
	e, err := scanEndpoint(r)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Endpoint{}, endpointNotFound(owner, name)
	}
	return e, mapError(err)
}

func endpointNotFound(owner, name string) error {
	return sqlstore.Mapped(fmt.Errorf("mysql: endpoint %q of owner %q: %w", name, owner, ports.ErrNotFound))
}

func scanEndpoint(r sqlrow.Scanner) (domain.Endpoint, error) {
	return sqlrow.ScanEndpoint(r, sqlrow.NullTime)
}
