package sqlite_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/chronoshq/chronos/adapters/sqlite"
)

// The live database and its -wal and -shm files hold endpoint secrets, token hashes
// and payloads: whoever creates them (serve through Open, chronos migrate through
// Migrate), they are readable and writable by their owner alone, 0600, under the usual
// umask and under one that would take the owner's own bits. An existing file keeps the
// mode it has. Not parallel: the umask is the process's.
func TestDatabaseFilesAreOwnerOnly(t *testing.T) {
	ctx := t.Context()
	for _, umask := range []int{0o022, 0o277} {
		old := syscall.Umask(umask)
		dir := t.TempDir()
		opened := filepath.Join(dir, "opened.db")
		s, err := sqlite.Open(ctx, "sqlite://"+opened, sqlite.Options{Migrate: true})
		if err != nil {
			syscall.Umask(old)
			t.Fatal(err)
		}
		// A write, so the WAL has frames and the shared memory index is in use.
		if err := s.PutState(ctx, "file-mode-test", "x"); err != nil {
			t.Fatal(err)
		}
		migrated := filepath.Join(dir, "migrated.db")
		err = sqlite.Migrate(ctx, "sqlite://"+migrated)
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{opened, opened + "-wal", opened + "-shm", migrated} {
			wantMode(t, path, 0o600)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}

	// An operator's own mode on an existing database is left as it is.
	shared := filepath.Join(t.TempDir(), "shared.db")
	if err := sqlite.Migrate(ctx, "sqlite://"+shared); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o640); err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(ctx, "sqlite://"+shared, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutState(ctx, "file-mode-test", "x"); err != nil {
		t.Fatal(err)
	}
	wantMode(t, shared, 0o640)
}

func wantMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Errorf("%s: %v", filepath.Base(path), err)
		return
	}
	if got := st.Mode().Perm(); got != want {
		t.Errorf("%s has mode %s, want %s", filepath.Base(path), got, want)
	}
}
