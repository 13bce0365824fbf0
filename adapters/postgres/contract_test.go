package postgres

import (
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/ports"
)

// TestContract runs the store conformance suite, each case on a schema of its own;
// Reopen opens a second Store on it, with its own pool.
func TestContract(t *testing.T) {
	adminPool(t) // skip or fail once, up front, when there is no server
	storetest.Contract(t, func(t *testing.T) string { return newSchema(t) }, func(t *testing.T, u string, clock ports.Clock, migrate bool) ports.Store {
		return openStore(t, u, Options{Clock: clock, Migrate: migrate})
	})
}

// direct is a store's database and the URL it listens for wake hints on, beside it.
type direct struct{ url, listenURL string }

// openDirect opens a store on d, closed when t ends.
func openDirect(t *testing.T, d direct, clock ports.Clock, migrate bool) ports.Store {
	return openStore(t, d.url, Options{Clock: clock, Migrate: migrate, ListenURL: d.listenURL})
}
