package dispatch

import (
	"context"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Store is what the dispatcher calls: claims and their fenced outcomes (ClaimStore),
// the resume of a pause that ended (Mutate, with ports.AnyOwner: the dispatcher acts
// for no owner), the cross-process hints, and whether the store has them. A ports.Store
// is one; a test's fake needs only these.
type Store interface {
	ports.ClaimStore
	Mutate(ctx context.Context, scope ports.Scope, id string, fn ports.MutateFunc) (domain.Alarm, error)
	SubscribeHints(ctx context.Context) (<-chan time.Time, error)
	Capabilities() ports.Capabilities
}
