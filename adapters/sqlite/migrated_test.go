package sqlite

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/pressly/goose/v3"
)

// migratedFile is a new database file migrated up to version, with the writer pool on
// it (closed with the test) and goose's provider, for a test of the migrations after it.
func migratedFile(t *testing.T, version int64) (string, *sql.DB, *goose.Provider) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := openWriter(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	p, err := newProvider(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(t.Context(), version); err != nil {
		t.Fatalf("migrate to %d: %v", version, err)
	}
	return path, db, p
}
