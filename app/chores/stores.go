package chores

import (
	"context"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// SamplerStore is what CountSampler calls: the lease that makes one node the sampler,
// the counts, and the state it shares them in.
type SamplerStore interface {
	ports.LeaseStore
	ports.StateStore
	CountAlarms(ctx context.Context, lease time.Duration) (ports.AlarmCounts, error)
}

// RetentionStore is what Retention calls: the deletions, the lease that makes one node
// do them, the state that remembers the cluster's last pass, and the store's clock.
type RetentionStore interface {
	ports.RetentionStore
	ports.LeaseStore
	ports.StateStore
	Now(ctx context.Context) (time.Time, error)
}
