package ports

import (
	"context"

	"github.com/chronoshq/chronos/domain"
)

// BulkCreator is optional: a store implements it when it can insert many alarms far
// faster than CreateBatch (COPY, multi-row INSERTs, no per-item idempotency answer).
// `chronos bench` loads its backlog with it, and an importer may; the API never does,
// because it needs CreateBatch's idempotency answer per alarm. Callers check for it
// with a type assertion and fall back to CreateBatch:
//
//	if bc, ok := store.(ports.BulkCreator); ok { err = bc.CreateMany(ctx, alarms) }
//
// Adapters that implement it assert so at compile time, and the contract suite runs
// its BulkCreate cases on them (and says plainly that it skipped them otherwise).
type BulkCreator interface {
	// CreateMany inserts every alarm of as, each built by domain.NewAlarm, exactly as
	// CreateBatch would: a bulk-loaded alarm is indistinguishable from one created so,
	// history included.
	//
	// It is all or nothing: the alarms are written in one
	// transaction. There is no dedupe: an id, or an owner's idempotency key, that is
	// already stored or repeated within as is ErrConflict, and then nothing is
	// written. An empty slice writes nothing and is not an error.
	//
	// Times are kept at the store's precision, as CreateBatch keeps them. The store may
	// split the work into several statements (parameter and packet limits), never into
	// several transactions. Large slices are the point: implementations must not hold
	// per-alarm round trips.
	CreateMany(ctx context.Context, as []domain.Alarm) error
}
