package ports

import (
	"context"

	"github.com/chronoshq/chronos/domain"
)

// EndpointStore keeps the owners' endpoints (domain.Endpoint): few rows, written by
// admins, read by every node's dispatcher (which caches them, re-reading when the
// "endpoints" state the admin use cases bump has changed) and by creates that name one.
type EndpointStore interface {
	// CreateEndpoint stores e (validated by domain.ValidateEndpoint), stamping CreatedAt
	// and UpdatedAt with the store's now, and returns it as stored. ErrConflict when the
	// owner already has an endpoint of that name. Secrets are kept exactly, in order;
	// Timeout at least to the millisecond (admin.Endpoints rounds it to whole milliseconds
	// before it stores it); times at the store's TimePrecision.
	CreateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error)
	// GetEndpoint returns the owner's endpoint. ErrNotFound when there is none.
	GetEndpoint(ctx context.Context, owner, name string) (domain.Endpoint, error)
	// ListEndpoints returns the owner's endpoints by name; every owner's (by owner, then
	// name) when owner is "". Both compare as bytes, as the stores' keys do. None is an
	// empty slice.
	ListEndpoints(ctx context.Context, owner string) ([]domain.Endpoint, error)
	// UpdateEndpoint replaces every field of the owner's endpoint e.Name but its
	// CreatedAt, stamping UpdatedAt, and returns it as stored. ErrNotFound when there is
	// none.
	UpdateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error)
	// DeleteEndpoint removes the owner's endpoint. Alarms naming it keep the name; their
	// wakes fail (recorded) until an endpoint of that name exists again. ErrNotFound
	// when there is none.
	DeleteEndpoint(ctx context.Context, owner, name string) error
}
