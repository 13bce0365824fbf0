package sqlite_test

import (
	"testing"

	"github.com/chronoshq/chronos/ports"
	"github.com/chronoshq/chronos/test/contract"
)

func TestContract(t *testing.T) {
	contract.Run(t, func(t *testing.T) contract.Harness { return &harness{} })
}

// harness gives every store its own migrated file in the test's temporary directory;
// Reopen opens a second Store on that file, as a second process would.
type harness struct {
	url string
}

var _ contract.Reopener = (*harness)(nil)

func (h *harness) NewStore(t *testing.T, clock ports.Clock) ports.Store {
	t.Helper()
	h.url = tempURL(t)
	return openURL(t, h.url, clock)
}

func (h *harness) Reopen(t *testing.T, clock ports.Clock) ports.Store {
	t.Helper()
	if h.url == "" {
		t.Fatal("Reopen before NewStore")
	}
	return openURL(t, h.url, clock)
}
