package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// chronos backup writes a checked copy and says how big it is and how long it took; it
// refuses to replace a file without --force, and on the server databases names their
// own tools and exits 1 without writing anything.
func TestBackupCommand(t *testing.T) {
	dir := t.TempDir()
	store := "sqlite://" + filepath.Join(dir, "chronos.db")
	if code, _, stderr := runChronos(t, "migrate", "--store", store); code != 0 {
		t.Fatalf("migrate: exit %d: %s", code, stderr)
	}
	to := filepath.Join(dir, "copy.db")
	code, stdout, stderr := runChronos(t, "backup", "--store", store, "--to", to)
	if code != 0 || stderr != "" {
		t.Fatalf("backup: exit %d, stderr %q", code, stderr)
	}
	if !regexp.MustCompile(`^backed up sqlite://\S+ to \S+copy\.db: [\d.]+ [KM]iB \(\d+ bytes\) in \d+(\.\d+)?m?s, PRAGMA integrity_check ok\n$`).MatchString(stdout) {
		t.Errorf("backup printed %q; want the size, the duration and the check", stdout)
	}
	before, err := os.Stat(to)
	if err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr = runChronos(t, "backup", "--store", store, "--to", to)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "exists") || !strings.Contains(stderr, "--force") {
		t.Errorf("backup over the copy: exit %d, stdout %q, stderr %q; want exit 1 naming --force", code, stdout, stderr)
	}
	if after, err := os.Stat(to); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("a refused backup touched the existing copy: %v", err)
	}
	if code, _, stderr := runChronos(t, "backup", "--store", store, "--to", to, "--force"); code != 0 {
		t.Errorf("backup --force: exit %d: %s", code, stderr)
	}

	for _, c := range []struct{ store, tool string }{
		{"postgres://root@127.0.0.1:5432/chronos", "pg_dump"},
		{"mysql://root@127.0.0.1:3306/chronos", "mysqldump"},
	} {
		code, stdout, stderr := runChronos(t, "backup", "--store", c.store, "--to", filepath.Join(dir, "server.db"))
		if code != 1 || stdout != "" || !strings.Contains(stderr, c.tool) || !strings.Contains(stderr, "SQLite stores only") {
			t.Errorf("backup of %s: exit %d, stdout %q, stderr %q; want exit 1 naming %s", c.store, code, stdout, stderr, c.tool)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "server.db")); !os.IsNotExist(err) {
		t.Errorf("a refused backup wrote its target: %v", err)
	}

	code, _, stderr = runChronos(t, "backup", "--store", store)
	if code != 2 || !strings.Contains(stderr, "--to is required") {
		t.Errorf("backup without --to: exit %d, stderr %q; want exit 2", code, stderr)
	}
	missing := "sqlite://" + filepath.Join(dir, "missing.db")
	code, _, stderr = runChronos(t, "backup", "--store", missing, "--to", filepath.Join(dir, "m.db"))
	if code != 1 || !strings.Contains(stderr, "does not exist") {
		t.Errorf("backup of a missing store: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !os.IsNotExist(err) {
		t.Errorf("backup created the missing store: %v", err)
	}
}
