package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite"

	"github.com/chronoshq/chronos/ports"
)

// A backup is a copy made through SQLite's online backup API (sqlite3_backup_*, which
// modernc.org/sqlite exposes on its connection as NewBackup), in one step on one of the
// reader connections:
//
//   - One step is one read transaction. In WAL mode it is a snapshot that neither blocks
//     the writer nor is blocked by it, so the copy is the database as of one commit
//     while chronos keeps claiming and writing. (Copying in several steps would restart
//     from the first page after every commit of the writer, a connection of its own,
//     and under a steady load never finish.)
//   - It copies pages, not rows: faster and lighter on a busy node than VACUUM INTO,
//     which rebuilds every table and index, so the snapshot, which holds checkpoints
//     back for its duration, is held for less time. VACUUM INTO would also need a
//     connection that may write (the readers are query_only) and compacts the copy,
//     which a backup does not need.
//
// The copy is written under a temporary name in the target's directory, switched to the
// rollback journal (a file that stands alone, with no -wal or -shm beside it and
// readable from read-only media; chronos switches it back to WAL when it opens it),
// synced, checked with PRAGMA integrity_check on a fresh read-only connection, and only
// then renamed into place.

// BackupOptions tune Backup.
type BackupOptions struct {
	// Force replaces an existing file at the target. Without it Backup refuses one.
	Force bool
}

// Backup copies the SQLite store at url, consistently and while other processes use it
// (a `chronos serve` on the same file included), to the file dst, and returns the
// copy's size in bytes. It opens a connection of its own and does not check the
// schema's version: a copy taken before an upgrade is the point.
func Backup(ctx context.Context, url, dst string, opts BackupOptions) (int64, error) {
	path, err := ParseURL(url)
	if err != nil {
		return 0, err
	}
	// Opening a missing file would create an empty database and copy that.
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("sqlite: backup: %w", err)
	}
	db, err := sql.Open("sqlite", readerDSN(path))
	if err != nil {
		return 0, fmt.Errorf("sqlite: backup: open %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, mapError(fmt.Errorf("backup: open %s: %w", path, err))
	}
	defer conn.Close()
	return backupTo(ctx, conn, path, dst, opts.Force)
}

var _ ports.Backuper = (*Store)(nil)

// Backup implements ports.Backuper on one of the store's reader connections; it
// refuses an existing path (wrapping ports.ErrConflict).
func (s *Store) Backup(ctx context.Context, path string) (int64, error) {
	conn, err := s.reader.Conn(ctx)
	if err != nil {
		return 0, mapError(fmt.Errorf("backup: %w", err))
	}
	defer conn.Close()
	return backupTo(ctx, conn, s.path, path, false)
}

var _ ports.DiskSizer = (*Store)(nil)

// DiskBytes implements ports.DiskSizer: the database file and its WAL (the -shm index
// is a few pages of shared memory, not data).
func (s *Store) DiskBytes() (int64, error) {
	var total int64
	for _, p := range []string{s.path, s.path + "-wal"} {
		fi, err := os.Stat(p)
		switch {
		case err == nil:
			total += fi.Size()
		case errors.Is(err, fs.ErrNotExist) && p != s.path:
			// No WAL between the last connection closing and the next one opening.
		default:
			return 0, fmt.Errorf("sqlite: %w", err)
		}
	}
	return total, nil
}

// backupTo copies the database on conn (whose file is src) to dst; see the comment at
// the top of this file.
func backupTo(ctx context.Context, conn *sql.Conn, src, dst string, force bool) (int64, error) {
	if err := checkBackupTarget(src, dst, force); err != nil {
		return 0, err
	}
	// Absolute, so that no directory name is taken for a "file:" URI by the driver.
	dst, err := filepath.Abs(dst)
	if err != nil {
		return 0, fmt.Errorf("sqlite: backup: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".partial-*")
	if err != nil {
		return 0, fmt.Errorf("sqlite: backup: %w", err)
	}
	tmpPath := tmp.Name()
	tmp.Close() // SQLite takes an empty file for an empty database
	done := false
	defer func() {
		if !done {
			for _, p := range []string{tmpPath, tmpPath + "-journal", tmpPath + "-wal", tmpPath + "-shm"} {
				_ = os.Remove(p)
			}
		}
	}()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := copyPages(conn, tmpPath); err != nil {
		return 0, err
	}
	if err := standAlone(ctx, tmpPath); err != nil {
		return 0, err
	}
	if err := checkIntegrity(ctx, tmpPath); err != nil {
		return 0, err
	}
	if err := publish(tmpPath, dst, force); err != nil {
		return 0, err
	}
	done = true
	syncDir(filepath.Dir(dst))
	fi, err := os.Stat(dst)
	if err != nil {
		return 0, fmt.Errorf("sqlite: backup: %w", err)
	}
	return fi.Size(), nil
}

// publish gives the checked copy its name. A hard link never replaces a file that
// appeared at dst while the copy was written; rename replaces one whole and atomically
// (force), and stands in where the filesystem has no hard links.
func publish(tmp, dst string, force bool) error {
	if !force {
		err := os.Link(tmp, dst)
		switch {
		case err == nil:
			_ = os.Remove(tmp) // the copy is published; a leftover name is only clutter
			return nil
		case errors.Is(err, fs.ErrExist):
			return fmt.Errorf("sqlite: backup: %s appeared while the copy was written: %w", dst, ports.ErrConflict)
		}
		if _, err := os.Lstat(dst); err == nil {
			return fmt.Errorf("sqlite: backup: %s appeared while the copy was written: %w", dst, ports.ErrConflict)
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	return nil
}

// checkBackupTarget refuses a target that cannot be a new copy: the database itself, a
// directory, an existing file without force, a path the driver cannot open as given.
func checkBackupTarget(src, dst string, force bool) error {
	switch {
	case dst == "":
		return errors.New("sqlite: backup: no target file given")
	case strings.ContainsAny(dst, "?\x00"):
		// The driver splits its DSN at the first '?'.
		return fmt.Errorf("sqlite: backup: the target %q must not contain '?' or NUL", dst)
	}
	fi, err := os.Stat(dst)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat(filepath.Dir(dst)); err != nil {
			return fmt.Errorf("sqlite: backup: the target's directory: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("sqlite: backup: %w", err)
	case fi.IsDir():
		return fmt.Errorf("sqlite: backup: the target %s is a directory; name the file to write", dst)
	}
	if srcInfo, err := os.Stat(src); err == nil && os.SameFile(srcInfo, fi) {
		return fmt.Errorf("sqlite: backup: the target %s is the database itself: %w", dst, ports.ErrConflict)
	}
	if !force {
		return fmt.Errorf("sqlite: backup: %s exists; backups never replace a file unless forced (chronos backup --force): %w", dst, ports.ErrConflict)
	}
	return nil
}

// copyPages copies every page of conn's database to the file at path in one step of the
// backup API: one read transaction, so one consistent snapshot.
func copyPages(conn *sql.Conn, path string) error {
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(interface {
			NewBackup(dstURI string) (*sqlite.Backup, error)
		})
		if !ok {
			return fmt.Errorf("the driver's connection (%T) has no backup API", dc)
		}
		b, err := c.NewBackup(path)
		if err != nil {
			return err
		}
		if _, err := b.Step(-1); err != nil {
			_ = b.Finish()
			return err
		}
		return b.Finish()
	})
	if err != nil {
		return mapError(fmt.Errorf("backup: copying the pages: %w", err))
	}
	return nil
}

// standAlone switches the copy, which has the source's WAL flag, to the rollback
// journal and syncs it: one self-contained file. busy_timeout: nothing else knows the
// file, but a scanner may open it as soon as it exists.
func standAlone(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", dsn(path, "_pragma=busy_timeout("+millis(busyTimeout)+")"))
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode=DELETE").Scan(&mode); err != nil {
		return mapError(fmt.Errorf("backup: leaving WAL mode in the copy: %w", err))
	}
	if mode != "delete" {
		return fmt.Errorf("sqlite: backup: the copy stayed in journal mode %q", mode)
	}
	if err := db.Close(); err != nil {
		return mapError(fmt.Errorf("backup: closing the copy: %w", err))
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sqlite: backup: syncing the copy: %w", err)
	}
	return nil
}

// checkIntegrity runs PRAGMA integrity_check on the copy, on a new connection: what a
// restore will read from disk, not what the copying connection cached.
func checkIntegrity(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", dsn(path, "_pragma=query_only(1)"))
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return mapError(fmt.Errorf("backup: checking the copy: %w", err))
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return mapError(fmt.Errorf("backup: checking the copy: %w", err))
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return mapError(fmt.Errorf("backup: checking the copy: %w", err))
	}
	if len(problems) > 0 {
		return fmt.Errorf("sqlite: backup: the copy failed PRAGMA integrity_check (it was deleted): %s", strings.Join(problems, "; "))
	}
	return nil
}

// syncDir makes a rename in dir durable; a filesystem that cannot sync a directory
// still has the file.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
