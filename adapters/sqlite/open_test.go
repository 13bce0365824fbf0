package sqlite_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/migrations"
	"github.com/chronoshq/chronos/ports"
)

// latestMigration is the number of embedded migrations: versions run 1, 2, ... with no gaps.
func latestMigration(t *testing.T) int {
	t.Helper()
	files, err := fs.Glob(migrations.SQLite(), "*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("embedded migrations: %v (%d files)", err, len(files))
	}
	latest := 0
	for _, f := range files { // the highest number: versions need not be consecutive
		n, err := strconv.Atoi(strings.SplitN(f, "_", 2)[0])
		if err != nil {
			t.Fatalf("migration %s: %v", f, err)
		}
		latest = max(latest, n)
	}
	return latest
}

// Without Migrate, Open refuses a database that is not at the embedded schema version,
// says which versions it found and wants, and tells the operator what to run.
func TestOpenRefusesUnmigratedDatabase(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	for _, path := range []string{missing, empty} {
		_, err := sqlite.Open(ctx, "sqlite://"+path, sqlite.Options{})
		if !errors.Is(err, ports.ErrSchemaVersion) {
			t.Fatalf("Open(%s) without Migrate: error = %v, want ErrSchemaVersion", path, err)
		}
		for _, says := range []string{"version 0", fmt.Sprintf("expects %d", latestMigration(t)), "chronos migrate"} {
			if !strings.Contains(err.Error(), says) {
				t.Errorf("Open(%s) error %q does not say %q", path, err, says)
			}
		}
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open without Migrate created %s (stat: %v)", missing, err)
	}

	if err := sqlite.Migrate(ctx, "sqlite://"+empty); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	s, err := sqlite.Open(ctx, "sqlite://"+empty, sqlite.Options{})
	if err != nil {
		t.Fatalf("Open after Migrate: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// Migrating an up-to-date database is a no-op.
	if err := sqlite.Migrate(ctx, "sqlite://"+empty); err != nil {
		t.Errorf("second Migrate: %v", err)
	}
}

func TestOpenRefusesBadURL(t *testing.T) {
	_, err := sqlite.Open(t.Context(), "sqlite::memory:", sqlite.Options{Migrate: true})
	if err == nil || !strings.Contains(err.Error(), "in-memory") {
		t.Errorf("Open(sqlite::memory:) error = %v, want a refusal of in-memory databases", err)
	}
}
