package ports

import (
	"context"
	"time"
)

// ReadReplica is a read-only copy of the store's database that a primary streams to (a
// PostgreSQL hot standby), serving the operator's reads that may be a little stale
// (the alarm lists and pages, histories, counts and the counts the sampler shared) so
// they take no work from the primary. Every write through it fails.
//
// Its reads are the store's own (AlarmReader), with any Scope: the node sends only the
// operator's reads (AnyOwner) there.
type ReadReplica interface {
	AlarmReader
	StateReader
	// ReplicationLag is how far the copy is behind its primary: 0 when it has replayed
	// everything it received, else the age of the last transaction it replayed.
	ReplicationLag(ctx context.Context) (time.Duration, error)
}
