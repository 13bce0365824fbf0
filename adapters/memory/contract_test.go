package memory_test

import (
	"testing"

	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/ports"
	"github.com/chronoshq/chronos/test/contract"
)

// TestContract runs the whole conformance suite against the memory store. It is also
// the suite's own self-test: the reference store must pass every case, so a failure
// here that no real store explains is a bug in the suite.
func TestContract(t *testing.T) {
	contract.Run(t, func(*testing.T) contract.Harness { return &harness{} })
}

// harness gives every case a database of its own; Reopen opens a second Store on the
// last one, as a second process would. There is nothing to clean up but Close.
type harness struct{ last *memory.Store }

var _ contract.Reopener = (*harness)(nil)

func (h *harness) NewStore(t *testing.T, clock ports.Clock) ports.Store {
	h.last = memory.New(clock)
	t.Cleanup(func() { _ = h.last.Close() })
	return h.last
}

func (h *harness) Reopen(t *testing.T, clock ports.Clock) ports.Store {
	s := h.last.Open(clock)
	t.Cleanup(func() { _ = s.Close() })
	return s
}
