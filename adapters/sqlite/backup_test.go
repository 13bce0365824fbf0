package sqlite_test

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/chronoshq/chronos/test/contract"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// backupAlarm is alarm number i of the writer, with a payload of a few pages so the
// database is big enough for a copy to overlap many commits.
func backupAlarm(t *testing.T, i int, now time.Time) domain.Alarm {
	t.Helper()
	at := now.Add(time.Hour)
	payload := []byte(`"` + strings.Repeat("x", 6000) + `"`)
	a, err := domain.NewAlarm(fmt.Sprintf("a%06d", i), domain.Spec{Owner: "o", Kind: domain.KindOnce, FireAt: &at, Payload: payload},
		now, domain.Defaults{MaxFailures: 3})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A backup taken while a writer commits alarm after alarm is one snapshot: it holds
// every alarm committed before it began and, of the later ones, a prefix of the
// writer's order (never a later alarm without an earlier one). It opens as a store on
// its own, a single file in the rollback journal, and leaves nothing else behind. Both
// ways are checked: the store's own (the admin API's) and Backup on a connection of its
// own (chronos backup while serve runs).
func TestBackupWhileWritingIsOneSnapshot(t *testing.T) {
	ctx := t.Context()
	url := tempURL(t)
	s := openURL(t, url, nil)
	now := time.Now().UTC()
	const before = 1500 // ~9 MB
	for i := range before {
		if _, _, err := contract.CreateOne(ctx, s, backupAlarm(t, i, now)); err != nil {
			t.Fatal(err)
		}
	}

	var committed atomic.Int64 // alarms committed so far, in order
	committed.Store(before)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := before; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, _, err := contract.CreateOne(ctx, s, backupAlarm(t, i, now)); err != nil {
				t.Errorf("a write during the backup: %v", err)
				return
			}
			committed.Add(1)
		}
	})

	out := t.TempDir()
	type way struct {
		name   string
		backup func(dst string) (int64, error)
	}
	for _, w := range []way{
		{"store", func(dst string) (int64, error) { return s.Backup(ctx, dst) }},
		{"own connection", func(dst string) (int64, error) { return sqlite.Backup(ctx, url, dst, sqlite.BackupOptions{}) }},
	} {
		dst := filepath.Join(out, strings.ReplaceAll(w.name, " ", "-")+".db")
		atStart, began := committed.Load(), time.Now()
		n, err := w.backup(dst)
		atEnd, took := committed.Load(), time.Since(began)
		if err != nil {
			t.Fatalf("%s: backup: %v", w.name, err)
		}
		fi, err := os.Stat(dst)
		if err != nil || fi.Size() != n {
			t.Fatalf("%s: backup reported %d bytes; the file: %v %v", w.name, n, fi, err)
		}
		if mode := fi.Mode().Perm(); mode&0o077 != 0 {
			t.Errorf("%s: the copy is readable by others (%v); it holds token hashes and endpoint secrets", w.name, mode)
		}
		header := make([]byte, 20)
		f, err := os.Open(dst)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.Read(header)
		f.Close()
		if header[18] != 1 || header[19] != 1 {
			t.Errorf("%s: the copy's header says journal versions %d/%d, want 1/1 (rollback journal, no -wal needed)", w.name, header[18], header[19])
		}

		c, err := sqlite.Open(ctx, "sqlite://"+dst, sqlite.Options{})
		if err != nil {
			t.Fatalf("%s: the copy does not open as a store: %v", w.name, err)
		}
		var ids []string
		cursor := ""
		for {
			page, next, err := c.List(ctx, ports.ListFilter{Scope: ports.OwnedBy("o"), Limit: ports.MaxListLimit, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range page {
				ids = append(ids, a.ID)
			}
			if cursor = next; next == "" {
				break
			}
		}
		c.Close()
		slices.Sort(ids)
		got := int64(len(ids))
		if got < atStart || got > atEnd {
			t.Errorf("%s: the copy holds %d alarms; %d were committed when it began and %d when it ended", w.name, got, atStart, atEnd)
		}
		for i, id := range ids {
			if want := fmt.Sprintf("a%06d", i); id != want {
				t.Errorf("%s: the copy's alarm #%d is %s, want %s: not a prefix of the writer's order (a torn copy)", w.name, i, id, want)
				break
			}
		}
		t.Logf("%s: %d bytes, %d alarms, in %s; %d committed during the copy", w.name, n, got, took.Round(time.Millisecond), atEnd-atStart)
	}
	close(stop)
	wg.Wait()

	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"own-connection.db", "store.db"}) {
		t.Errorf("the backup directory holds %v; want the two copies alone (no partial file, -journal, -wal or -shm)", names)
	}
}

// A backup never replaces a file unless forced, never writes over the database itself,
// and a failed one leaves nothing behind, the source included.
func TestBackupRefusals(t *testing.T) {
	ctx := t.Context()
	url := tempURL(t)
	s := openURL(t, url, nil)
	if _, _, err := contract.CreateOne(ctx, s, backupAlarm(t, 0, time.Now().UTC())); err != nil {
		t.Fatal(err)
	}
	src, _ := sqlite.ParseURL(url)
	dir := t.TempDir()

	existing := filepath.Join(dir, "existing.db")
	if err := os.WriteFile(existing, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Backup(ctx, existing); !errors.Is(err, ports.ErrConflict) || !strings.Contains(err.Error(), "exists") {
		t.Errorf("store backup over an existing file: %v; want ErrConflict saying it exists", err)
	}
	if _, err := sqlite.Backup(ctx, url, existing, sqlite.BackupOptions{}); !errors.Is(err, ports.ErrConflict) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("backup over an existing file: %v; want ErrConflict naming --force", err)
	}
	if got, _ := os.ReadFile(existing); !bytes.Equal(got, []byte("keep me")) {
		t.Errorf("a refused backup changed the existing file: %q", got)
	}
	if _, err := sqlite.Backup(ctx, url, existing, sqlite.BackupOptions{Force: true}); err != nil {
		t.Errorf("forced backup over an existing file: %v", err)
	} else if c, err := sqlite.Open(ctx, "sqlite://"+existing, sqlite.Options{}); err != nil {
		t.Errorf("the forced copy does not open: %v", err)
	} else {
		c.Close()
	}

	for name, dst := range map[string]string{
		"the database itself":   src,
		"a directory":           dir,
		"a missing directory":   filepath.Join(dir, "nowhere", "b.db"),
		"a name with a '?'":     filepath.Join(dir, "b.db?mode=memory"),
		"the database (forced)": src,
	} {
		force := strings.HasSuffix(name, "(forced)")
		if _, err := sqlite.Backup(ctx, url, dst, sqlite.BackupOptions{Force: force}); err == nil {
			t.Errorf("backup to %s: no error", name)
		}
	}
	if _, err := s.Get(ctx, ports.OwnedBy("o"), "a000000"); err != nil {
		t.Errorf("the database after the refused backups: %v", err)
	}

	missing := "sqlite://" + filepath.Join(dir, "missing.db")
	if _, err := sqlite.Backup(ctx, missing, filepath.Join(dir, "m.db"), sqlite.BackupOptions{}); err == nil {
		t.Error("backup of a missing database: no error")
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"existing.db"}) {
		t.Errorf("after the refusals the directory holds %v; want existing.db alone (no missing.db created, no partial file)", names)
	}
}

// DiskBytes is the database file and its WAL.
func TestDiskBytesCountsTheWAL(t *testing.T) {
	url := tempURL(t)
	s := openURL(t, url, nil)
	if _, _, err := contract.CreateOne(t.Context(), s, backupAlarm(t, 0, time.Now().UTC())); err != nil {
		t.Fatal(err)
	}
	path, _ := sqlite.ParseURL(url)
	var want int64
	for _, p := range []string{path, path + "-wal"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want += fi.Size()
	}
	got, err := s.DiskBytes()
	if err != nil || got != want || got == 0 {
		t.Errorf("DiskBytes = %d, %v; want %d (file and WAL)", got, err, want)
	}
}
