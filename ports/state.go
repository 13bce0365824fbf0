package ports

import (
	"context"
	"time"
)

// StateStore keeps small named values shared by every node of a cluster: the dispatch
// pause gate, the last retention run. Values are opaque to the store (the app stores
// JSON); there are a handful of names, each written rarely and read every tick.
type StateStore interface {
	StateReader
	// PutState stores value under name, replacing any, with UpdatedAt = the store's now.
	PutState(ctx context.Context, name, value string) error
	// SwapState stores value under name, as PutState does, only if what is stored
	// there now is exactly old ("" : nothing is stored there), and reports whether it
	// did: one atomic compare-and-set, so that of several callers that read the same
	// value and each write their change of it, exactly one wins and the others read
	// again. A lost race is false with a nil error, never ErrConflict.
	SwapState(ctx context.Context, name, old, value string) (bool, error)
}

// StateReader reads the named values (a read replica serves it too).
type StateReader interface {
	// GetState returns the value stored under name, and false when nothing is.
	GetState(ctx context.Context, name string) (State, bool, error)
}

// State is one named value.
type State struct {
	Value     string
	UpdatedAt time.Time
}
