package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/ports"
)

// tempURL is a store URL for a new database file in t's temporary directory.
func tempURL(t *testing.T) string {
	t.Helper()
	return "sqlite://" + filepath.Join(t.TempDir(), "chronos.db")
}

// openURL opens a store on url, migrating it, and closes it when t ends.
func openURL(t *testing.T, url string, clock ports.Clock) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), url, sqlite.Options{Clock: clock, Migrate: true})
	if err != nil {
		t.Fatalf("Open(%s): %v", url, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}
