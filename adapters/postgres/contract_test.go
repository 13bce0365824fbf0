package postgres

import (
	"testing"

	"github.com/chronoshq/chronos/ports"
	"github.com/chronoshq/chronos/test/contract"
)

// TestContract runs the store conformance suite, each case on a schema of its own.
func TestContract(t *testing.T) {
	adminPool(t) // skip or fail once, up front, when there is no server
	contract.Run(t, func(t *testing.T) contract.Harness { return &harness{} })
}

// harness opens stores on fresh schemas; Reopen opens a second Store on the last one,
// with its own pool, like a second chronos process.
type harness struct {
	url string
}

var _ contract.Reopener = (*harness)(nil)

func (h *harness) NewStore(t *testing.T, clock ports.Clock) ports.Store {
	t.Helper()
	s, url := newTestStore(t, clock)
	h.url = url
	return s
}

func (h *harness) Reopen(t *testing.T, clock ports.Clock) ports.Store {
	t.Helper()
	if h.url == "" {
		t.Fatal("Reopen before NewStore")
	}
	return openStore(t, h.url, Options{Clock: clock})
}
