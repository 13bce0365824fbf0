package ports

import (
	"context"
	"time"
)

// RetentionStore deletes what the retention policy no longer keeps, in bounded batches,
// so that no call is one huge transaction and dispatching never waits long behind one.
// chores.Retention drives it on one node at a time (LeaseStore).
//
// What is never deleted, whatever the parameters: an active or paused alarm; a row that
// carries a lease (claimed_by set), whatever its status; an event of a live alarm
// except by the age and per-alarm rules of TrimEvents.
type RetentionStore interface {
	// DeleteExpiredAlarms deletes up to p.Limit alarms whose status is terminal (fired,
	// cancelled, failed), that hold no lease, and whose updated_at is before p.Before,
	// together with all their events, in one transaction: the alarm rows first, then the
	// events of exactly those ids in a later statement (the stores have no foreign key
	// from events to alarms; see the migrations). It returns how many alarms and events
	// it deleted; fewer alarms than p.Limit means none is left to delete. Its cost must
	// be the rows it deletes (an index on the terminal rows by updated_at), never a walk
	// of the table.
	DeleteExpiredAlarms(ctx context.Context, p ExpiredAlarms) (Deleted, error)

	// TrimEvents is one step of a sweep over every alarm in id order: for up to p.Alarms
	// alarms with ids after p.After it deletes their events older than p.Before, and,
	// when p.Keep > 0, all but the p.Keep newest of each. It returns what it deleted and
	// the last id it covered, "" when the sweep has passed the last alarm (the next call
	// starts it again with After ""). One transaction per call.
	TrimEvents(ctx context.Context, p TrimEvents) (Trimmed, error)
}

// ExpiredAlarms says which terminal alarms DeleteExpiredAlarms deletes.
type ExpiredAlarms struct {
	Before time.Time // last change strictly before this
	Limit  int       // most alarms in one call (>= 1)
}

// Deleted is what one DeleteExpiredAlarms call removed.
type Deleted struct {
	Alarms int
	Events int
}

// TrimEvents is one step of the events sweep.
type TrimEvents struct {
	After  string    // sweep cursor: alarms with larger ids; "" from the start
	Alarms int       // alarms covered by this step (>= 1)
	Before time.Time // events whose at is strictly before this are deleted
	Keep   int       // newest events kept per alarm; 0 keeps every event not too old
}

// Trimmed is what one TrimEvents call did.
type Trimmed struct {
	Events int    // events deleted
	Next   string // the cursor for the next step; "" when the sweep is complete
}

// LeaseStore hands out named cluster leases: which process does a cluster-wide chore
// (retention) until when, so that N nodes never do it at once and a node that dies
// hands it over when its lease runs out. Leases live in the database, never in one
// node's memory. Times are the store's (the database clock where it has one).
type LeaseStore interface {
	// AcquireLease takes the lease name for holder until now + ttl when it is free,
	// expired, or already holder's (then it is renewed), and reports whether holder
	// holds it now. Safe under concurrency: of many callers at once for a free lease,
	// exactly one gets it.
	AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error)
	// ReleaseLease gives the lease up if holder holds it; otherwise it does nothing.
	ReleaseLease(ctx context.Context, name, holder string) error
}
