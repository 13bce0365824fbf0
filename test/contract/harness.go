package contract

import (
	"testing"

	"github.com/chronoshq/chronos/ports"
)

// Harness makes stores for the suite.
type Harness interface {
	// NewStore opens a store on a fresh, empty, migrated database (or schema) that no
	// other test shares, using clock for every notion of "now" (stores that declare
	// DatabaseClock must honour an injected clock). It registers t.Cleanup to close the
	// store and drop what it created. It calls t.Fatal when it cannot.
	NewStore(t *testing.T, clock ports.Clock) ports.Store
}

// NewHarness builds a harness for one (sub)test.
type NewHarness func(t *testing.T) Harness

// Reopener is optional. A harness implements it when it can open a second Store on the
// database its most recent NewStore call created, the way a second chronos process
// would (its own connections, its own caches). The suite uses it to run claimers in
// two Stores at once for stores that declare MultiProcess; without it those cases are
// skipped with a note saying so.
type Reopener interface {
	// Reopen opens another Store on the database of the last NewStore, using clock, and
	// registers t.Cleanup to close it (not to drop the database: NewStore's cleanup does).
	Reopen(t *testing.T, clock ports.Clock) ports.Store
}
