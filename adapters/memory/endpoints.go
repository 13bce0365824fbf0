package memory

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// The endpoints table, keyed by (owner, name). Rows go in and out as copies (keepEndpoint),
// so no caller shares a secrets slice with the store. The timeout is kept to the
// millisecond, as the SQL stores keep it.

func (s *Store) CreateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	return txv(s, ctx, func() (domain.Endpoint, error) {
		k := ownerName{e.Owner, e.Name}
		if _, taken := s.endpoints[k]; taken {
			return domain.Endpoint{}, fmt.Errorf("memory: endpoint %q of owner %q: %w", e.Name, e.Owner, ports.ErrConflict)
		}
		e.CreatedAt, e.UpdatedAt = s.now(), s.now()
		s.endpoints[k] = keepEndpoint(e)
		return keepEndpoint(e), nil
	})
}

func (s *Store) GetEndpoint(ctx context.Context, owner, name string) (domain.Endpoint, error) {
	return txv(s, ctx, func() (domain.Endpoint, error) {
		if e, ok := s.endpoints[ownerName{owner, name}]; ok {
			return keepEndpoint(e), nil
		}
		return domain.Endpoint{}, endpointNotFound(owner, name)
	})
}

func (s *Store) ListEndpoints(ctx context.Context, owner string) ([]domain.Endpoint, error) {
	return txv(s, ctx, func() ([]domain.Endpoint, error) {
		out := []domain.Endpoint{}
		for _, e := range slices.SortedFunc(maps.Values(s.endpoints), byOwnerName) {
			if owner == "" || e.Owner == owner {
				out = append(out, keepEndpoint(e))
			}
		}
		return out, nil
	})
}

func byOwnerName(x, y domain.Endpoint) int {
	return cmp.Or(strings.Compare(x.Owner, y.Owner), strings.Compare(x.Name, y.Name))
}

func (s *Store) UpdateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	return txv(s, ctx, func() (domain.Endpoint, error) {
		k := ownerName{e.Owner, e.Name}
		old, ok := s.endpoints[k]
		if !ok {
			return domain.Endpoint{}, endpointNotFound(e.Owner, e.Name)
		}
		e.CreatedAt, e.UpdatedAt = old.CreatedAt, s.now()
		s.endpoints[k] = keepEndpoint(e)
		return keepEndpoint(e), nil
	})
}

func (s *Store) DeleteEndpoint(ctx context.Context, owner, name string) error {
	return s.tx(ctx, func() error {
		k := ownerName{owner, name}
		if _, ok := s.endpoints[k]; !ok {
			return endpointNotFound(owner, name)
		}
		delete(s.endpoints, k)
		return nil
	})
}

func endpointNotFound(owner, name string) error {
	return fmt.Errorf("memory: endpoint %q of owner %q: %w", name, owner, ports.ErrNotFound)
}

// keepEndpoint is e as kept (and handed out): the timeout to the millisecond, the times
// truncated, and a secrets slice of its own.
func keepEndpoint(e domain.Endpoint) domain.Endpoint {
	e.Timeout = e.Timeout.Truncate(time.Millisecond)
	e.CreatedAt, e.UpdatedAt = trunc(e.CreatedAt), trunc(e.UpdatedAt)
	e.Secrets = slices.Clone(e.Secrets)
	return e
}
