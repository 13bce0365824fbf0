package api_test

import (
	"github.com/chronoshq/chronos/ports"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/sqlite"
)

type backupBody struct {
	Backup struct {
		File   string `json:"file"`
		Bytes  int64  `json:"bytes"`
		At     string `json:"at"`
		TookMS int64  `json:"took_ms"`
	} `json:"backup"`
}

// An admin's backup lands in --backup-dir under a name the node chose, and is a store
// that opens and holds what was there before it.
func TestAdminBackupWritesACopyToTheBackupDir(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, onceIn60s)

	res := e.as(e.ops, "POST", "/admin/v1/store/backup", "")
	if res.status != http.StatusCreated {
		t.Fatalf("backup: %d %s", res.status, res.body)
	}
	var body backupBody
	decodeStrict(t, res, &body)
	b := body.Backup
	if !regexp.MustCompile(`^chronos-\d{8}T\d{6}Z\.db$`).MatchString(b.File) {
		t.Errorf("file %q, want chronos-YYYYMMDDTHHMMSSZ.db", b.File)
	}
	path := filepath.Join(e.backupDir, b.File)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the backup is not in --backup-dir: %v", err)
	}
	if fi.Size() != b.Bytes || b.Bytes == 0 {
		t.Errorf("bytes %d, the file has %d", b.Bytes, fi.Size())
	}
	if ents, _ := os.ReadDir(e.backupDir); len(ents) != 1 {
		t.Errorf("--backup-dir holds %d files, want the backup alone (no temporary file, no -wal)", len(ents))
	}
	copyStore, err := sqlite.Open(e.ctx, "sqlite://"+path, sqlite.Options{})
	if err != nil {
		t.Fatalf("the backup does not open as a store: %v", err)
	}
	defer copyStore.Close()
	if got, err := copyStore.Get(e.ctx, ports.OwnedBy("alice"), a.ID); err != nil || got.ID != a.ID {
		t.Errorf("the backup lacks alice's alarm %s: %v", a.ID, err)
	}
}

// The request names no file: a body naming one is refused and nothing is written, there
// or in --backup-dir. Only the admin scope may ask.
func TestAdminBackupRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	elsewhere := filepath.Join(t.TempDir(), "mine.db")
	res := e.as(e.ops, "POST", "/admin/v1/store/backup", `{"path":"`+elsewhere+`"}`)
	ev := expectError(t, res, http.StatusBadRequest, "invalid_request", "path")
	if !strings.Contains(ev.Message, "--backup-dir") {
		t.Errorf("message %q does not say where backups go", ev.Message)
	}
	if _, err := os.Stat(elsewhere); err == nil {
		t.Errorf("a backup was written where the request said")
	}
	expectError(t, e.as(e.reader, "POST", "/admin/v1/store/backup", ""), http.StatusForbidden, "forbidden", "")
	expectError(t, e.as(e.alice, "POST", "/admin/v1/store/backup", ""), http.StatusForbidden, "forbidden", "")
	if ents, _ := os.ReadDir(e.backupDir); len(ents) != 0 {
		t.Errorf("refused requests left %d files in --backup-dir", len(ents))
	}
	if res := e.as(e.ops, "POST", "/admin/v1/store/backup", `{}`); res.status != http.StatusCreated {
		t.Errorf("an empty object: %d %s, want 201", res.status, res.body)
	}
}

// A node started without --backup-dir makes no backups on request, and says how to.
func TestAdminBackupWithoutBackupDir(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, envOptions{noBackupDir: true})
	ev := expectError(t, e.as(e.ops, "POST", "/admin/v1/store/backup", ""), http.StatusNotImplemented, "unsupported", "")
	if !strings.Contains(ev.Message, "--backup-dir") {
		t.Errorf("message %q does not name --backup-dir", ev.Message)
	}
}
