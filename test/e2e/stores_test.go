package e2e

import (
	"path/filepath"
	"testing"
)

// storeKind names a store the scenarios run on.
type storeKind string

const (
	onSQLite storeKind = "sqlite"
)

// newStoreURL makes a fresh, empty store of kind for one test and drops it afterwards.
func newStoreURL(t *testing.T, kind storeKind) string {
	t.Helper()
	switch kind {
	case onSQLite:
		return "sqlite://" + filepath.Join(t.TempDir(), "chronos.db")
	}
	t.Fatalf("unknown store kind %q", kind)
	return ""
}
