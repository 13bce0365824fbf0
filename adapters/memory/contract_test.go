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
	contract.Run(t, func(*testing.T) contract.Harness { return harness{} })
}

// harness gives every case a store of its own; there is nothing to clean up but Close.
type harness struct{}

func (harness) NewStore(t *testing.T, clock ports.Clock) ports.Store {
	s := memory.New(memory.Options{Clock: clock})
	t.Cleanup(func() { _ = s.Close() })
	return s
}
