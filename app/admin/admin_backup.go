package admin

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// ErrBackupUnsupported: the store is not a file this node can copy. PostgreSQL's and
// MySQL's servers back their databases up themselves.
var ErrBackupUnsupported error = &backupRefusal{ports.ErrUnsupported, "backups on request are for SQLite stores; back up PostgreSQL with pg_dump or continuous archiving (point-in-time recovery), MySQL/MariaDB with mysqldump or the binary log"}

// ErrNoBackupDir: the node was started without a backup directory, the only place it
// writes backups to.
var ErrNoBackupDir error = &backupRefusal{ports.ErrUnsupported, "this node makes no backups on request: start it with --backup-dir (CHRONOS_BACKUP_DIR) naming the directory to write them to, or run chronos backup on its host"}

// ErrBackupBusy: a backup is being written by this node already.
var ErrBackupBusy error = &backupRefusal{ports.ErrBusy, "a backup is being written on this node; try again when it is done"}

// backupRefusal is a refusal that is its portable sentinel for errors.Is (and so for
// the API's status) but reads as its own message: the sentinels' words ("unsupported by
// this store", "busy on another node") would say something else here.
type backupRefusal struct {
	sentinel error
	msg      string
}

func (e *backupRefusal) Error() string { return e.msg }
func (e *backupRefusal) Unwrap() error { return e.sentinel }

// BackupSetup says whether this node makes backups on request, and where.
func (s *Admin) BackupSetup() domain.BackupSetup {
	_, ok := s.store.(ports.Backuper)
	return domain.BackupSetup{Supported: ok, Dir: s.cfg.BackupDir}
}

// backupLayout names a backup by the second it was started, in UTC: the names sort
// in time order and say when each copy was taken.
const backupLayout = "chronos-20060102T150405Z.db"

// Backup copies the store, while it serves, to a new file in the node's backup
// directory, named by the node (never by the caller), one backup at a time. The log
// says who asked for it.
func (s *Admin) Backup(ctx context.Context, by string) (domain.Backup, error) {
	b, ok := s.store.(ports.Backuper)
	switch {
	case !ok:
		return domain.Backup{}, ErrBackupUnsupported
	case s.cfg.BackupDir == "":
		return domain.Backup{}, ErrNoBackupDir
	}
	if !s.backingUp.TryLock() {
		return domain.Backup{}, ErrBackupBusy
	}
	defer s.backingUp.Unlock()
	at := s.clock.Now().UTC()
	name := at.Format(backupLayout)
	start := time.Now()
	n, err := b.Backup(ctx, filepath.Join(s.cfg.BackupDir, name))
	if errors.Is(err, ports.ErrConflict) {
		return domain.Backup{}, &backupRefusal{ports.ErrBusy, fmt.Sprintf("a backup named %s exists already (one was made this second); try again in a second", name)}
	}
	if err != nil {
		return domain.Backup{}, err
	}
	took := time.Since(start)
	s.log.Info("admin made a backup", zapToken(by), zap.String("file", filepath.Join(s.cfg.BackupDir, name)),
		zap.Int64("bytes", n), zap.Duration("took", took))
	return domain.Backup{File: name, Bytes: n, At: at, Took: took}, nil
}
