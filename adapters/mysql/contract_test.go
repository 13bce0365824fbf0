package mysql

import (
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/ports"
)

// TestContract runs the store conformance suite against MySQL/MariaDB, each case on a
// database of its own.
func TestContract(t *testing.T) {
	storetest.Contract(t, newDatabase, openOn)
}

// openOn opens a store on the database storeURL names, closed when t ends.
func openOn(t *testing.T, storeURL string, clock ports.Clock, migrate bool) ports.Store {
	t.Helper()
	s, err := Open(t.Context(), storeURL, Options{Clock: clock, Migrate: migrate})
	return storetest.Opened(t, s, err)
}
