package sqlite_test

import (
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/ports"
)

// TestContract runs the store conformance suite, each case on a migrated file of its
// own in the test's temporary directory; Reopen opens a second Store on that file, as a
// second process would.
func TestContract(t *testing.T) {
	storetest.Contract(t, tempURL, func(t *testing.T, url string, clock ports.Clock, _ bool) ports.Store {
		return openURL(t, url, clock)
	})
}
