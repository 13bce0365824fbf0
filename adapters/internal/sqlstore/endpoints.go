package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Endpoints are a handful of rows written by admins now and then: a write reads the
// store's now first and returns what it wrote (an update, under the row's lock, with the
// created_at it read), which every database can do (MySQL has no RETURNING).

// CreateEndpoint stores e, stamped with the store's now. A taken (owner, name) is
// ErrConflict.
func (e *Engine[T]) CreateEndpoint(ctx context.Context, ep domain.Endpoint) (domain.Endpoint, error) {
	now, err := e.Now(ctx, e.Write)
	if err != nil {
		return domain.Endpoint{}, e.mapError(err)
	}
	ep = storedEndpoint(ep)
	ep.CreatedAt, ep.UpdatedAt = now, now
	if _, err := e.Write.Exec(ctx, e.SQL.CreateEndpoint, append(sqlrow.EndpointValues(ep), e.TimeArg(now), e.TimeArg(now))...); err != nil {
		return domain.Endpoint{}, e.mapError(err)
	}
	return ep, nil
}

// GetEndpoint returns the owner's endpoint.
func (e *Engine[T]) GetEndpoint(ctx context.Context, owner, name string) (domain.Endpoint, error) {
	ep, err := one(ctx, e.Read, e.scanEndpoint, e.endpointNotFound(owner, name), e.SQL.GetEndpoint, owner, name)
	return ep, e.mapError(err)
}

// ListEndpoints returns the owner's endpoints by name, or every owner's by owner, then
// name.
func (e *Engine[T]) ListEndpoints(ctx context.Context, owner string) ([]domain.Endpoint, error) {
	q, args := e.SQL.ListOwnerEndpoints, []any{owner}
	if owner == "" {
		q, args = sqlrow.ListAllEndpointsSQL, nil
	}
	es, err := List(ctx, e.Read, e.scanEndpoint, q, args...)
	return es, e.mapError(err)
}

// UpdateEndpoint replaces the owner's endpoint but its CreatedAt, stamping UpdatedAt.
func (e *Engine[T]) UpdateEndpoint(ctx context.Context, ep domain.Endpoint) (domain.Endpoint, error) {
	var stored domain.Endpoint
	err := e.Tx(ctx, func(tx DB) error {
		old, err := one(ctx, tx, e.scanEndpoint, e.endpointNotFound(ep.Owner, ep.Name), e.SQL.LockEndpoint, ep.Owner, ep.Name)
		if err != nil {
			return err
		}
		now, err := e.Now(ctx, tx)
		if err != nil {
			return err
		}
		stored = storedEndpoint(ep)
		stored.CreatedAt, stored.UpdatedAt = old.CreatedAt, now
		v := sqlrow.EndpointValues(stored)
		_, err = tx.Exec(ctx, e.SQL.UpdateEndpoint, append(v[2:], e.TimeArg(now), ep.Owner, ep.Name)...)
		return err
	})
	if err != nil {
		return domain.Endpoint{}, e.mapError(err)
	}
	return stored, nil
}

// DeleteEndpoint removes the owner's endpoint.
func (e *Engine[T]) DeleteEndpoint(ctx context.Context, owner, name string) error {
	n, err := e.Write.Exec(ctx, e.SQL.DeleteEndpoint, owner, name)
	if err != nil {
		return e.mapError(err)
	}
	if n == 0 {
		return e.endpointNotFound(owner, name)
	}
	return nil
}

func (e *Engine[T]) endpointNotFound(owner, name string) error {
	return Mapped(fmt.Errorf("%s: endpoint %q of owner %q: %w", e.Name, name, owner, ports.ErrNotFound))
}

func (e *Engine[T]) scanEndpoint(r sqlrow.Scanner) (domain.Endpoint, error) {
	return sqlrow.ScanEndpoint(r, e.ToTime)
}

// storedEndpoint is e as the row keeps it: its timeout in whole milliseconds, and a
// copy of its secrets, so the caller's slice and the result are not one.
func storedEndpoint(e domain.Endpoint) domain.Endpoint {
	e.Timeout = e.Timeout.Truncate(time.Millisecond)
	e.Secrets = append([]string(nil), e.Secrets...)
	return e
}
