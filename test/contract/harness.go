// Package contract is the store conformance suite: the executable form of the promises
// in package ports. An adapter passes when Run passes against it. It imports only
// domain, ports and the standard library, so an outside adapter author can run it
// without pulling in any database driver.
//
// A harness is a few lines (see adapters/sqlite/contract_test.go):
//
//	func TestContract(t *testing.T) {
//		contract.Run(t, func(t *testing.T) contract.Harness { return harness{} })
//	}
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
