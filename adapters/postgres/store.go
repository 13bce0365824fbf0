// Package postgres is the PostgreSQL store: a pgx connection pool, a one-statement
// FOR UPDATE SKIP LOCKED claim, batched fenced transitions, and wake hints over
// LISTEN/NOTIFY. Many chronos processes may share one database.
//
// The database clock decides what is due and stamps leases, so nodes with skewed
// clocks agree. Tests inject a Clock instead; its time is then passed to every
// statement as a parameter. See docs/postgres.md.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/ports"
)

var _ ports.Store = (*Store)(nil)

// Options configures Open.
//
// There is no schema option: to keep chronos in a schema of its own, put it in the URL
// (postgres://host/db?search_path=chronos). Migrate and Open then both honour it, and
// so does every pooled and listening connection. Wake hints are scoped to the schema.
type Options struct {
	// Clock replaces the database clock for every notion of "now" (tests). Nil: the
	// database server's clock.
	Clock ports.Clock
	// Migrate applies pending migrations before use. Otherwise Open refuses a schema
	// that is not at the version this binary expects.
	Migrate bool
	// ListenURL is a direct connection (no transaction pooler) to the same database,
	// for the wake hints' LISTEN, which needs a session of its own. "": the store URL's,
	// unless that goes through a transaction pooler (pooler=transaction), in which case
	// the store declares no wake hints and nodes find due alarms by polling.
	ListenURL string
}

// Store is a ports.Store on PostgreSQL. Safe for concurrent use.
type Store struct {
	pool        *pgxpool.Pool
	clock       ports.Clock // nil: the database clock
	hintChannel string      // see hintChannelFor
	// listenConfig is the connection hint listeners LISTEN on; nil: no wake hints (a
	// transaction pooler and no Options.ListenURL).
	listenConfig *pgx.ConnConfig
	// pooled: the store URL goes through a transaction pooler (see pooler.go).
	pooled bool
	// database is the store's database when Options.ListenURL names the listener's
	// own connection, which must reach the same one; "" otherwise.
	database string
	// listenerCheck is how long a hint listener waits in silence before it pings its
	// connection (the constant; tests shorten it before subscribing).
	listenerCheck time.Duration

	// done is closed by Close; it stops hint listeners, which live outside the pool.
	// mu orders registering a listener against closing done.
	mu        sync.Mutex
	done      chan struct{}
	listeners sync.WaitGroup

	sqlstore.Engine[pgtype.Timestamptz] // tokens, sessions, state, workers
}

// Open connects to the database at url (postgres:// or postgresql://, any parameter
// pgx understands) and checks, or with opts.Migrate applies, the schema version.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	cfg, pooled, err := parseStoreURL(url)
	if err != nil {
		return nil, err
	}
	listenConfig, err := listenConfigFor(cfg, pooled, opts.ListenURL)
	if err != nil {
		return nil, err
	}
	if opts.Migrate {
		if err := migrateConfig(ctx, cfg.ConnConfig, pooled); err != nil {
			return nil, err
		}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, mapError(err)
	}
	s := &Store{pool: pool, clock: opts.Clock, listenConfig: listenConfig, pooled: pooled,
		done: make(chan struct{}), listenerCheck: listenerCheck}
	if pooled {
		if err := checkPoolerSettings(ctx, pool); err != nil {
			pool.Close()
			return nil, err
		}
	}
	if opts.ListenURL != "" {
		if err := pool.QueryRow(ctx, `SELECT current_database()`).Scan(&s.database); err != nil {
			pool.Close()
			return nil, mapError(err)
		}
	}
	schema, err := s.checkSchemaVersion(ctx)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.hintChannel = hintChannelFor(schema)
	s.Engine = s.newEngine()
	return s, nil
}

// parseURL is the connection configuration a store URL names (see parseStoreURL).
func parseURL(url string) (*pgxpool.Config, error) {
	cfg, _, err := parseStoreURL(url)
	return cfg, err
}

// parseDirectURL parses a store URL without chronos's own parameters.
func parseDirectURL(url string) (*pgxpool.Config, error) {
	if !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") {
		return nil, errors.New("postgres: store URL must start with postgres:// or postgresql://")
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx redacts the password in what it quotes of the URL.
		return nil, fmt.Errorf("postgres: invalid store URL: %w", err)
	}
	for name, value := range sessionSettings {
		if _, set := cfg.ConnConfig.RuntimeParams[name]; !set {
			cfg.ConnConfig.RuntimeParams[name] = value
		}
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	return cfg, nil
}

// defaultConnectTimeout bounds a whole connect (dial, TLS, startup, authentication)
// unless the URL sets connect_timeout. Without it pgx gives a pool connection 2 minutes,
// in the background even after the caller gave up, and the hint listener forever: a
// connect started while the network path was blackholed (accepted, never answered)
// held one of the pool's few slots for 2 minutes, so the node stayed short of
// connections long after the path was back (test/e2e TestFaultNetwork).
const defaultConnectTimeout = 10 * time.Second

// The store's sessions plan every prepared statement once, generically, never choose a
// sequential or bitmap scan while an index path exists, and never JIT-compile: every
// statement is an index walk with a good generic plan, and statistics may be missing
// (docs/postgres.md, "Generic plans"). A store URL may still set each itself.
const (
	planCacheMode = "plan_cache_mode"
	genericPlans  = "force_generic_plan"
)

// sessionSettings are the run-time parameters of every store session, unless the store
// URL sets them; see above.
var sessionSettings = map[string]string{
	planCacheMode:       genericPlans,
	"enable_seqscan":    "off",
	"enable_bitmapscan": "off",
	"jit":               "off",
}

// Capabilities: the database clock, many nodes, LISTEN/NOTIFY hints (unless only a
// transaction pooler leads to the database), microseconds.
func (s *Store) Capabilities() ports.Capabilities {
	return ports.Capabilities{
		DatabaseClock: true,
		MultiProcess:  true,
		WakeHints:     s.listenConfig != nil,
		TimePrecision: time.Microsecond,
	}
}

// Now is the database's now() (or the injected clock), in UTC.
func (s *Store) Now(ctx context.Context) (time.Time, error) {
	if s.clock != nil {
		if s.closed() {
			return time.Time{}, errClosed
		}
		return s.clockNow(), nil
	}
	var now time.Time
	if err := s.pool.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
		return time.Time{}, mapError(err)
	}
	return now.UTC(), nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return mapError(s.pool.Ping(ctx))
}

// Close stops hint listeners and closes the pool. It waits for queries in flight.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed() {
		s.mu.Unlock()
		return nil
	}
	close(s.done)
	s.mu.Unlock()
	s.listeners.Wait()
	s.pool.Close()
	return nil
}

var errClosed = errors.New("postgres: store is closed")

func (s *Store) closed() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// clockNow is the injected clock's time at the store's precision. Only call it when a
// clock is injected.
func (s *Store) clockNow() time.Time {
	return s.clock.Now().UTC().Truncate(time.Microsecond)
}

// nowArg is the parameter every "now" in SQL is written against, as
// coalesce($n::timestamptz, now()): NULL selects the database clock, an injected
// clock's time overrides it. One statement text serves both, so a test exercises the
// very plan production runs.
func (s *Store) nowArg() any {
	if s.clock == nil {
		return nil
	}
	return s.clockNow()
}
