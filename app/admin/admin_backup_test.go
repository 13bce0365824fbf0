package admin_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// backupStore is a store that can copy itself (ports.Backuper): it records the paths
// asked for and waits for release, when set, before answering.
type backupStore struct {
	ports.Store
	paths   chan string
	release chan struct{}
	err     error
}

func (s *backupStore) Backup(ctx context.Context, path string) (int64, error) {
	s.paths <- path
	if s.release != nil {
		<-s.release
	}
	return 4096, s.err
}

func newBackupAdmin(store ports.Store, dir string) *admin.Admin {
	return admin.New(store, app.NewStoreClock(), nil, nil, admin.Config{BackupDir: dir}, nil)
}

// A backup goes to the backup directory under a name the node makes from the time; one
// at a time; a store that cannot copy itself, or a node without a directory, refuses
// with ErrUnsupported saying what to do instead.
func TestAdminBackup(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	store := &backupStore{paths: make(chan string, 2), release: make(chan struct{})}
	adm := newBackupAdmin(store, dir)
	if s := adm.BackupSetup(); !s.Supported || s.Dir != dir {
		t.Errorf("BackupSetup = %+v; want supported in %s", s, dir)
	}

	done := make(chan domain.Backup)
	go func() {
		b, err := adm.Backup(ctx, "tok_1")
		if err != nil {
			t.Errorf("Backup: %v", err)
		}
		done <- b
	}()
	path := <-store.paths
	if _, err := adm.Backup(ctx, "tok_2"); !errors.Is(err, ports.ErrBusy) || !errors.Is(err, admin.ErrBackupBusy) {
		t.Errorf("a second backup while the first runs: %v; want ErrBackupBusy (ports.ErrBusy)", err)
	}
	close(store.release)
	b := <-done
	if filepath.Dir(path) != dir || filepath.Base(path) != b.File {
		t.Errorf("the store was asked for %s; want %s in %s", path, b.File, dir)
	}
	if !regexp.MustCompile(`^chronos-\d{8}T\d{6}Z\.db$`).MatchString(b.File) || b.Bytes != 4096 || b.At.IsZero() {
		t.Errorf("backup = %+v", b)
	}
	if b.File != b.At.Format("chronos-20060102T150405Z.db") {
		t.Errorf("the file %s is not named by its time %s", b.File, b.At)
	}

	store.err = fmt.Errorf("sqlite: backup: %s exists: %w", path, ports.ErrConflict)
	if _, err := adm.Backup(ctx, "tok_1"); !errors.Is(err, ports.ErrBusy) {
		t.Errorf("a name taken (two backups in one second): %v; want ErrBusy", err)
	}
	<-store.paths

	type plainStore struct{ ports.Store }
	for name, c := range map[string]struct {
		adm  *admin.Admin
		want error
	}{
		"PostgreSQL or MySQL": {newBackupAdmin(plainStore{}, dir), admin.ErrBackupUnsupported},
		"no --backup-dir":     {newBackupAdmin(&backupStore{paths: make(chan string, 1)}, ""), admin.ErrNoBackupDir},
	} {
		if _, err := c.adm.Backup(ctx, "tok_1"); !errors.Is(err, c.want) || !errors.Is(err, ports.ErrUnsupported) {
			t.Errorf("%s: %v; want %v (ports.ErrUnsupported)", name, err, c.want)
		}
	}
	if s := newBackupAdmin(plainStore{}, dir).BackupSetup(); s.Supported {
		t.Errorf("BackupSetup of a store without Backup = %+v", s)
	}
}
