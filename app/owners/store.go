package owners

import (
	"context"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Store is what the owner use cases call: the alarms (always within ports.OwnedBy the
// caller), the owner's endpoints a create names and calendars a series names, the hint a
// create publishes to other nodes' dispatchers when the store carries hints, and the
// cluster lease that keeps an owner's bulk calls one at a time. A ports.Store is one.
type Store interface {
	ports.AlarmStore
	ports.LeaseStore
	GetEndpoint(ctx context.Context, owner, name string) (domain.Endpoint, error)
	ListEndpoints(ctx context.Context, owner string) ([]domain.Endpoint, error)
	GetCalendars(ctx context.Context, owner string, names []string) ([]domain.Calendar, error)
	PublishHint(ctx context.Context, at time.Time) error
	Capabilities() ports.Capabilities
}
