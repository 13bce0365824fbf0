package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var _ ports.EndpointStore = (*Store)(nil)

const endpointColumns = sqlrow.EndpointColumns

// createEndpointSQL inserts an endpoint stamped with the store's now ($9: the injected
// clock's time, or NULL for the database clock). A taken (owner, name) is a unique
// violation: ErrConflict.
const createEndpointSQL = `INSERT INTO endpoints (` + endpointColumns + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, coalesce($9::timestamptz, now()), coalesce($9::timestamptz, now()))
	RETURNING ` + endpointColumns

// updateEndpointSQL replaces every column but the key and created_at.
const updateEndpointSQL = `UPDATE endpoints SET url = $3, secrets = $4, timeout_ms = $5, max_in_flight = $6,
	rate_per_second = $7, failure_url = $8, updated_at = coalesce($9::timestamptz, now())
	WHERE owner = $1 AND name = $2
	RETURNING ` + endpointColumns

const (
	getEndpointSQL    = `SELECT ` + endpointColumns + ` FROM endpoints WHERE owner = $1 AND name = $2`
	listEndpointsSQL  = `SELECT ` + endpointColumns + ` FROM endpoints WHERE owner = $1 ORDER BY name`
	deleteEndpointSQL = `DELETE FROM endpoints WHERE owner = $1 AND name = $2`
)

// CreateEndpoint stores e, stamped with the store's now.
func (s *Store) CreateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	stored, err := scanEndpoint(s.pool.QueryRow(ctx, createEndpointSQL, append(sqlrow.EndpointValues(e), s.nowArg())...))
	return stored, mapError(err)
}

// GetEndpoint returns the owner's endpoint.
func (s *Store) GetEndpoint(ctx context.Context, owner, name string) (domain.Endpoint, error) {
	return endpointRow(s.pool.QueryRow(ctx, getEndpointSQL, owner, name), owner, name)
}

// ListEndpoints returns the owner's endpoints by name, or every owner's by owner, then
// name.
func (s *Store) ListEndpoints(ctx context.Context, owner string) ([]domain.Endpoint, error) {
	var rows pgx.Rows
	var err error
	if owner == "" {
		rows, err = s.pool.Query(ctx, sqlrow.ListAllEndpointsSQL)
	} else {
		rows, err = s.pool.Query(ctx, listEndpointsSQL, owner)
	}
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	es, err := sqlrow.All(rows, 0, scanEndpoint)
	return es, mapError(err)
}

// UpdateEndpoint replaces the owner's endpoint but its CreatedAt, stamping UpdatedAt.
func (s *Store) UpdateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	return endpointRow(s.pool.QueryRow(ctx, updateEndpointSQL, append(sqlrow.EndpointValues(e), s.nowArg())...), e.Owner, e.Name)
}

// DeleteEndpoint removes the owner's endpoint.
func (s *Store) DeleteEndpoint(ctx context.Context, owner, name string) error {
	tag, err := s.pool.Exec(ctx, deleteEndpointSQL, owner, name)
	if err != nil {
		return mapError(err)
	}
	if tag.RowsAffected() == 0 {
		return endpointNotFound(owner, name)
	}
	return nil
}

// endpointRow reads the one endpoint row r returns, naming owner/name when there is none.
func endpointRow(r pgx.Row, owner, name string) (domain.Endpoint, error) {
	e, err := scanEndpoint(r)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Endpoint{}, endpointNotFound(owner, name)
	}
	return e, mapError(err)
}

func endpointNotFound(owner, name string) error {
	return fmt.Errorf("postgres: endpoint %q of owner %q: %w", name, owner, ports.ErrNotFound)
}

func scanEndpoint(r sqlrow.Scanner) (domain.Endpoint, error) {
	return sqlrow.ScanEndpoint(r, tsTime)
}
