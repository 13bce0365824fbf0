package ports

import (
	"context"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// AdminReader is the reads of the operator's views that may be served a little stale:
// every owner's alarms listed, one alarm and its history, the counts, and the counts
// the sampler shared. Never a read a write depends on.
type AdminReader interface {
	AdminList(ctx context.Context, f AdminFilter) (alarms []domain.Alarm, nextCursor string, err error)
	AdminGet(ctx context.Context, id string) (domain.Alarm, error)
	AdminEvents(ctx context.Context, id string, limit int) ([]domain.Event, error)
	CountAlarms(ctx context.Context, lease time.Duration) (AlarmCounts, error)
	StateReader
}

// ReadReplica is an AdminReader on a read-only copy of the store's database that a
// primary streams to (a PostgreSQL hot standby), so the operator's lists and counts
// take no work from the primary. Every write through it fails.
type ReadReplica interface {
	AdminReader
	// ReplicationLag is how far the copy is behind its primary: 0 when it has replayed
	// everything it received, else the age of the last transaction it replayed.
	ReplicationLag(ctx context.Context) (time.Duration, error)
}
