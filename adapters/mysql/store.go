package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/ports"
)

var _ ports.Store = (*Store)(nil)

// Options tune Open.
type Options struct {
	// Clock, when set, replaces the database clock for every notion of "now" (tests).
	// Nil means the database server's clock, so nodes with skewed clocks agree.
	Clock ports.Clock
	// Migrate applies pending migrations at open. Without it Open refuses a database
	// whose schema is not at this binary's version.
	Migrate bool
}

// Store is the MySQL/MariaDB implementation of ports.Store. It is safe for concurrent
// use by many goroutines and many processes sharing one database.
type Store struct {
	db      *sql.DB
	clock   ports.Clock // nil: the database clock
	server  serverVersion
	stmts   *stmtCache           // the prepared batch statements
	reads   *sqlstore.PreparedDB // the engine's reads, prepared once repeated
	retries atomic.Int64         // transactions run again after a deadlock or lock wait timeout

	sqlstore.Engine[sql.NullTime] // tokens, sessions, state, workers
}

// Pool connections are recycled well before a typical server wait_timeout (8h) or a
// proxy's idle cut-off would break them under us. The pool size comes from the URL.
const (
	connMaxIdleTime = 5 * time.Minute
	connMaxLifetime = 30 * time.Minute
)

// Open connects to the database at url (mysql://user:password@host:port/dbname?params,
// see parseURL), refuses servers older than MySQL 8.0 or MariaDB 10.6, and migrates the
// schema when opts.Migrate is set, or else checks that it is at this binary's version.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	if opts.Migrate {
		// On a pool of its own, without the store's I/O deadline: a migration's ALTER
		// may run for minutes on a large table.
		if err := Migrate(ctx, url); err != nil {
			return nil, err
		}
	}
	db, server, err := connect(ctx, url, ioTimeout)
	if err != nil {
		return nil, err
	}
	err = checkSchema(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	s := &Store{db: db, clock: opts.Clock, server: server, stmts: newStmtCache(db), reads: newReads(db)}
	s.Engine = s.newEngine()
	return s, nil
}

// Migrate applies every pending migration to the database at url. Several processes
// may call it at once: they take turns on a server-side named lock.
func Migrate(ctx context.Context, url string) error {
	db, _, err := connect(ctx, url, 0)
	if err != nil {
		return err
	}
	defer db.Close()
	return migrate(ctx, db)
}

// ioTimeout bounds each read and each write on a store connection unless the URL sets
// readTimeout or writeTimeout. The driver honours a context while it sends a statement
// and reads its answer, but database/sql's Tx.Commit takes no context, and the driver
// reads COMMIT's answer with no deadline of its own: on a connection lost without a word
// (a blackholed network path) a claim's or an apply's commit waited for ever, and with it
// the claim loop, so the node never fired again (e2e TestFaultNetwork, whose SIGQUIT
// stacks showed it). A statement whose answer takes longer (a row lock waited on past
// it, a count over a very large table) now fails as unavailable, as a lock wait timeout
// already did; a URL's readTimeout lifts the bound.
const ioTimeout = 15 * time.Second

// connect opens the pool and checks the server. io bounds each read and write of its
// connections where the URL sets no timeout of its own (0: no bound).
func connect(ctx context.Context, url string, io time.Duration) (*sql.DB, serverVersion, error) {
	cc, err := parseURL(url)
	if err != nil {
		return nil, serverVersion{}, err
	}
	cfg := cc.driver
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = io
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = io
	}
	c, err := newConnector(cfg)
	if err != nil {
		return nil, serverVersion{}, err
	}
	db := sql.OpenDB(c)
	// Idle connections are kept up to the cap: the dispatcher claims and applies on a
	// steady cadence, and reconnecting costs more round trips than any query.
	db.SetMaxOpenConns(cc.maxOpenConns)
	db.SetMaxIdleConns(cc.maxOpenConns)
	db.SetConnMaxIdleTime(connMaxIdleTime)
	db.SetConnMaxLifetime(connMaxLifetime)
	var raw string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&raw); err != nil {
		db.Close()
		return nil, serverVersion{}, mapError(fmt.Errorf("connect to %s/%s: %w", cfg.Addr, cfg.DBName, err))
	}
	server, err := parseServerVersion(raw)
	if err == nil {
		err = server.check()
	}
	if err != nil {
		db.Close()
		return nil, serverVersion{}, err
	}
	return db, server, nil
}

// Capabilities: the database clock decides, any number of processes may claim, there
// is no LISTEN/NOTIFY to carry wake hints, and DATETIME(6) keeps microseconds.
func (s *Store) Capabilities() ports.Capabilities {
	return ports.Capabilities{
		DatabaseClock: true,
		MultiProcess:  true,
		WakeHints:     false,
		TimePrecision: precision,
	}
}

// Now is the database clock (UTC_TIMESTAMP(6), which ignores the session time zone),
// or the injected clock cut to microseconds.
func (s *Store) Now(ctx context.Context) (time.Time, error) {
	now, err := s.now(ctx, s.db)
	return now, mapError(err)
}

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// now reads the store's now through q, so inside a transaction it comes from the same
// connection and after any lock the transaction already holds.
func (s *Store) now(ctx context.Context, q querier) (time.Time, error) {
	if s.clock != nil {
		return micro(s.clock.Now()), nil
	}
	var now time.Time
	if err := q.QueryRowContext(ctx, "SELECT UTC_TIMESTAMP(6)").Scan(&now); err != nil {
		return time.Time{}, err
	}
	return now.UTC(), nil
}

// injectedNow is the argument for "COALESCE(?, UTC_TIMESTAMP(6))": the injected clock's
// now, or NULL so the statement reads the database clock itself (one round trip).
func (s *Store) injectedNow() any {
	if s.clock == nil {
		return nil
	}
	return micro(s.clock.Now())
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return mapError(s.db.PingContext(ctx))
}

// Close releases the pool. Later calls fail with "sql: database is closed".
func (s *Store) Close() error {
	s.stmts.close()
	s.reads.Close()
	return mapError(s.db.Close())
}
