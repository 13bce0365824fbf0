package mysql

import (
	"testing"

	"github.com/chronoshq/chronos/ports"
	"github.com/chronoshq/chronos/test/contract"
)

// TestContract runs the store conformance suite against MySQL/MariaDB, each case on a
// database of its own.
func TestContract(t *testing.T) {
	contract.Run(t, func(t *testing.T) contract.Harness { return &harness{} })
}

// harness opens stores on fresh databases. It remembers the last one so Reopen can open
// a second Store on it, the way a second chronos process would.
type harness struct {
	url string
}

var _ contract.Reopener = (*harness)(nil)

func (h *harness) NewStore(t *testing.T, clock ports.Clock) ports.Store {
	t.Helper()
	s, u := openTestStore(t, Options{Clock: clock})
	h.url = u
	return s
}

func (h *harness) Reopen(t *testing.T, clock ports.Clock) ports.Store {
	t.Helper()
	if h.url == "" {
		t.Fatal("Reopen before NewStore")
	}
	s, err := Open(t.Context(), h.url, Options{Clock: clock})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
