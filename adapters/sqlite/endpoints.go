package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqltext"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var _ ports.EndpointStore = (*Store)(nil)

const endpointColumns = sqlrow.EndpointColumns

// Endpoints are a handful of rows written by admins now and then: their statements are
// not prepared at Open like the hot path's, and run straight on the writer (one
// statement each, its own transaction) and the reader pool.
var (
	createEndpointSQL = `INSERT INTO endpoints (` + endpointColumns + `) VALUES (` +
		sqltext.Placeholders(sqlrow.EndpointParams) + `) RETURNING ` + endpointColumns
	// updateEndpointSQL replaces every column but the key and created_at, and returns the
	// row as stored.
	updateEndpointSQL = `UPDATE endpoints SET url = ?3, secrets = ?4, timeout_ms = ?5, max_in_flight = ?6,
		rate_per_second = ?7, failure_url = ?8, updated_at = ?9
		WHERE owner = ?1 AND name = ?2
		RETURNING ` + endpointColumns
)

const (
	getEndpointSQL    = `SELECT ` + endpointColumns + ` FROM endpoints WHERE owner = ? AND name = ?`
	listEndpointsSQL  = `SELECT ` + endpointColumns + ` FROM endpoints WHERE owner = ? ORDER BY name`
	deleteEndpointSQL = `DELETE FROM endpoints WHERE owner = ? AND name = ?`
)

// CreateEndpoint stores e, stamped with the store's now. A taken (owner, name) is the
// primary key's: ErrConflict.
func (s *Store) CreateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	now := toDB(s.now())
	stored, err := scanEndpoint(s.writer.QueryRowContext(ctx, createEndpointSQL, append(sqlrow.EndpointValues(e), now, now)...))
	return stored, mapError(err)
}

// GetEndpoint returns the owner's endpoint.
func (s *Store) GetEndpoint(ctx context.Context, owner, name string) (domain.Endpoint, error) {
	return endpointRow(s.reader.QueryRowContext(ctx, getEndpointSQL, owner, name), owner, name)
}

// ListEndpoints returns the owner's endpoints by name, or every owner's by owner, then
// name.
func (s *Store) ListEndpoints(ctx context.Context, owner string) ([]domain.Endpoint, error) {
	q, args := listEndpointsSQL, []any{owner}
	if owner == "" {
		q, args = sqlrow.ListAllEndpointsSQL, nil
	}
	es, err := sqlrow.Query(ctx, s.reader, scanEndpoint, q, args...)
	return es, mapError(err)
}

// UpdateEndpoint replaces the owner's endpoint but its CreatedAt, stamping UpdatedAt.
func (s *Store) UpdateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	args := append(sqlrow.EndpointValues(e), toDB(s.now()))
	return endpointRow(s.writer.QueryRowContext(ctx, updateEndpointSQL, args...), e.Owner, e.Name)
}

// DeleteEndpoint removes the owner's endpoint.
func (s *Store) DeleteEndpoint(ctx context.Context, owner, name string) error {
	n, err := sqlrow.Affected(s.writer.ExecContext(ctx, deleteEndpointSQL, owner, name))
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return endpointNotFound(owner, name)
	}
	return nil
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
	return fmt.Errorf("sqlite: endpoint %q of owner %q: %w", name, owner, ports.ErrNotFound)
}

func scanEndpoint(r sqlrow.Scanner) (domain.Endpoint, error) {
	return sqlrow.ScanEndpoint(r, fromDB)
}
