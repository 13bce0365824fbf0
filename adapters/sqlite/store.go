package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go, no cgo)

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/ports"
)

// Store is the SQLite implementation of ports.Store.
//
// It holds two pools on one database file: a single writer connection, through which
// every write transaction passes (SQLite allows one writer at a time anyway; queueing in
// Go is cheaper than contending for the file lock), and a pool of read-only connections
// for queries, which WAL lets run alongside the writer. Across processes, writers
// serialize on BEGIN IMMEDIATE.
type Store struct {
	path                           string // the database file
	writer                         *sql.DB
	turns                          writeTurns // who has the writer next: claims first (write_turns.go)
	reader                         *sql.DB
	clock                          ports.Clock
	stmts                          statements
	reads                          readStatements // on the reader pool
	closed                         atomic.Bool
	sqlstore.Engine[sql.NullInt64] // tokens, sessions, state, workers
}

var _ ports.Store = (*Store)(nil)

// Options configure Open.
type Options struct {
	// Clock is the store's notion of now; nil means ports.SystemClock{}.
	Clock ports.Clock
	// Migrate applies pending migrations before opening. Without it Open refuses a
	// database whose schema is not exactly the version this binary embeds.
	Migrate bool
}

// Open opens the SQLite store at url (see ParseURL).
//
// With opts.Migrate false, the schema must already be at the latest embedded version;
// otherwise the error wraps ports.ErrSchemaVersion and names both versions. A missing
// file is not created in that case.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	path, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		opts.Clock = ports.SystemClock{}
	}
	if !opts.Migrate {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			want, err := latestVersion()
			if err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("sqlite: %w: no database at %s (version 0, this binary expects %d): run `chronos migrate` to create it",
				ports.ErrSchemaVersion, path, want)
		}
	}

	s := &Store{clock: opts.Clock, path: path}
	if opts.Migrate {
		if s.writer, err = openWriter(ctx, path); err != nil {
			return nil, err
		}
		if err := migrate(ctx, s.writer); err != nil {
			s.closeAll()
			return nil, err
		}
	}
	if s.reader, err = openReader(ctx, path); err != nil {
		s.closeAll()
		return nil, err
	}
	// Checked on the read-only pool before the writer first touches an unmigrated file.
	if err := checkVersion(ctx, s.reader); err != nil {
		s.closeAll()
		return nil, err
	}
	if s.writer == nil {
		if s.writer, err = openWriter(ctx, path); err != nil {
			s.closeAll()
			return nil, err
		}
	}
	if s.stmts, err = prepare(ctx, s.writer); err != nil {
		s.closeAll()
		return nil, err
	}
	if s.reads, err = prepareReads(ctx, s.reader); err != nil {
		s.closeAll()
		return nil, err
	}
	s.Engine = s.newEngine()
	return s, nil
}

func openWriter(ctx context.Context, path string) (*sql.DB, error) {
	if err := createPrivate(path); err != nil {
		return nil, mapError(fmt.Errorf("open %s: %w", path, err))
	}
	db, err := sql.Open("sqlite", writerDSN(path))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	// One connection, kept open for the life of the store: every write queues for it.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	// The first connection creates the file and switches it to WAL; fail here, not on
	// the first write.
	if err := pingWriter(ctx, db); err != nil {
		db.Close()
		return nil, mapError(fmt.Errorf("open %s: %w", path, err))
	}
	return db, nil
}

// createPrivate creates the database file readable and writable by its owner alone
// (0600, whatever the umask), unless it exists: it holds endpoint secrets, token hashes
// and payloads, and SQLite would create it 0644 less the umask. SQLite gives the -wal
// and -shm files it makes later the database file's own mode, so they are private too.
// An existing file keeps the mode its operator gave it.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	// The umask may have taken bits from 0600 itself; set it exactly.
	return errors.Join(f.Chmod(0o600), f.Close())
}

// pingWriter opens the writer's connection, retrying SQLITE_BUSY for up to the busy
// timeout. A busy handler is not always called: where waiting could deadlock, SQLite
// returns SQLITE_BUSY at once (sqlite3_busy_handler's documentation), and a new file
// being set up by several processes together (WAL switch, recovery) is such a place.
func pingWriter(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(busyTimeout)
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := db.PingContext(ctx)
		if err == nil || !errors.Is(mapError(err), ErrBusy) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

func openReader(ctx context.Context, path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", readerDSN(path))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, mapError(fmt.Errorf("open %s: %w", path, err))
	}
	return db, nil
}

// Capabilities: the process clock, several processes on one host (WAL and BEGIN
// IMMEDIATE work across processes sharing the file), no cross-process wake hints
// (SQLite has no notification channel; dispatchers poll), millisecond timestamps.
func (s *Store) Capabilities() ports.Capabilities {
	return ports.Capabilities{
		DatabaseClock: false,
		MultiProcess:  true,
		WakeHints:     false,
		TimePrecision: time.Millisecond,
	}
}

// Now is the injected (or process) clock, in UTC, truncated to what the store keeps.
func (s *Store) Now(ctx context.Context) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	if s.closed.Load() {
		return time.Time{}, errors.New("sqlite: store is closed")
	}
	return s.now(), nil
}

func (s *Store) now() time.Time { return trunc(s.clock.Now()) }

// Ping checks that the database answers a query. It uses the reader pool so a
// readiness probe never queues behind the writer's transactions.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return mapError(s.reader.QueryRowContext(ctx, "SELECT 1").Scan(&one))
}

// Close closes both pools. Calls after Close return errors.
func (s *Store) Close() error {
	s.closed.Store(true)
	return s.closeAll()
}

func (s *Store) closeAll() error {
	var errs []error
	s.stmts.close()
	s.reads.close()
	if s.reader != nil {
		errs = append(errs, s.reader.Close())
	}
	if s.writer != nil {
		errs = append(errs, s.writer.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}
