// Package memory is chronos's reference store, the one to read before writing a store
// for another database (docs/writing-an-adapter.md): all of ports.Store, with the
// optional BulkCreator, Exporter and Importer, in memory behind one mutex, each method
// the shortest code that keeps the promise of ports; comments say only what ports does
// not. It walks a map where a database walks an index: fine at a memory store's sizes.
package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Precision is the store's TimePrecision (PostgreSQL's).
const Precision = time.Microsecond

// ErrClosed is returned by every call after Close.
var ErrClosed = errors.New("memory: store is closed")

// Store is a handle on an in-memory database, as a connection pool is on a real one.
// Every method runs in tx, under the database's one mutex, so each is one transaction.
type Store struct {
	*database
	clock  ports.Clock
	closed bool // this handle's, guarded by mu
}

// database is the tables and the mutex that every Store opened on them shares.
type database struct {
	mu        sync.Mutex
	alarms    *table[string, domain.Alarm]
	events    map[string][]domain.Event // by alarm id, oldest (lowest event id) first
	lastEvent int64                     // the event id sequence
	tokens    *table[string, domain.Token]
	workers   *table[string, domain.Worker]
	leases    map[string]clusterLease
	state     map[string]ports.State
	sessions  *table[string, ports.Session]
	endpoints *table[ownerKey, domain.Endpoint]
	calendars *table[ownerKey, domain.Calendar]
}

type ownerKey struct{ owner, name string } // an endpoint's, a calendar's: a name unique per owner

type clusterLease struct {
	holder  string
	expires time.Time
}

var (
	_ ports.Store       = (*Store)(nil)
	_ ports.BulkCreator = (*Store)(nil)
	_ ports.Exporter    = (*Store)(nil)
	_ ports.Importer    = (*Store)(nil)
)

// New returns a Store on a new, empty database; a nil clock means ports.SystemClock{}.
func New(clock ports.Clock) *Store {
	db := &database{
		alarms:    newTable(func(a domain.Alarm) string { return a.ID }, keep),
		events:    map[string][]domain.Event{},
		tokens:    newTable(func(t domain.Token) string { return t.ID }, keepToken),
		workers:   newTable(func(w domain.Worker) string { return w.ID }, keepWorker),
		leases:    map[string]clusterLease{},
		state:     map[string]ports.State{},
		sessions:  newTable(func(s ports.Session) string { return s.Hash }, keepSession),
		endpoints: newTable(func(e domain.Endpoint) ownerKey { return ownerKey{e.Owner, e.Name} }, keepEndpoint),
		calendars: newTable(func(c domain.Calendar) ownerKey { return ownerKey{c.Owner, c.Name} }, keepCalendar),
	}
	return (&Store{database: db}).Open(clock)
}

// Open returns another Store on s's database, the way a second process opens the
// database the first one uses: it sees every write of the other, its claims never
// overlap theirs, and it has a clock and a Close of its own (s may be closed).
func (s *Store) Open(clock ports.Clock) *Store {
	if clock == nil {
		clock = ports.SystemClock{}
	}
	return &Store{database: s.database, clock: clock}
}

// Capabilities: every now is the clock given to New or Open (no DatabaseClock); several
// Stores on one database in one process (MultiProcess: Open); no WakeHints.
func (s *Store) Capabilities() ports.Capabilities {
	return ports.Capabilities{MultiProcess: true, TimePrecision: Precision}
}

// tx runs fn as one transaction (as sqlstore's Tx does): under the lock, on an open
// store. A done context comes back untouched, never wrapped; fn's error as is.
func (s *Store) tx(ctx context.Context, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return fn()
}

// txv is tx for an fn with a result, do for one that cannot fail.
func txv[T any](s *Store, ctx context.Context, fn func() (T, error)) (v T, err error) {
	err = s.tx(ctx, func() error { v, err = fn(); return err })
	return v, err
}

func (s *Store) do(ctx context.Context, fn func()) error {
	return s.tx(ctx, func() error { fn(); return nil })
}

func (s *Store) Now(ctx context.Context) (time.Time, error) {
	return txv(s, ctx, func() (time.Time, error) { return s.now(), nil })
}

func (s *Store) Ping(ctx context.Context) error { return s.do(ctx, func() {}) }

// Close makes later calls return ErrClosed. Closing twice is no error.
func (s *Store) Close() error { s.mu.Lock(); defer s.mu.Unlock(); s.closed = true; return nil }

func (s *Store) now() time.Time { return trunc(s.clock.Now()) }

// trunc is t as kept: UTC, at Precision (counted from the zero time, which stays zero).
func trunc(t time.Time) time.Time { return t.UTC().Truncate(Precision) }

// table is one table: rows by primary key (key), each as the table keeps it (keep:
// times at Precision, slices and maps of its own) on its way in and on its way out, so
// a caller's value never aliases a stored one.
type table[K comparable, V any] struct {
	byKey map[K]V
	key   func(V) K
	keep  func(V) V
}

func newTable[K comparable, V any](key func(V) K, keep func(V) V) *table[K, V] {
	return &table[K, V]{byKey: map[K]V{}, key: key, keep: keep}
}

// insert is an INSERT that a taken key refuses with ErrConflict: the row as kept.
func (t *table[K, V]) insert(v V) (V, error) {
	if _, taken := t.byKey[t.key(v)]; taken {
		var none V
		return none, fmt.Errorf("memory: %v: %w", t.key(v), ports.ErrConflict)
	}
	return t.put(v), nil
}

// put is an INSERT, or a REPLACE of the row with v's key: the row as kept.
func (t *table[K, V]) put(v V) V {
	t.byKey[t.key(v)] = t.keep(v)
	return t.keep(v)
}

// get is the row with key k; ErrNotFound without one.
func (t *table[K, V]) get(k K) (V, error) {
	v, ok := t.byKey[k]
	if !ok {
		return v, fmt.Errorf("memory: %v: %w", k, ports.ErrNotFound)
	}
	return t.keep(v), nil
}

// update is "UPDATE ... WHERE key = k": the row as change leaves it; ErrNotFound without one.
func (t *table[K, V]) update(k K, change func(*V)) (V, error) {
	v, err := t.get(k)
	if err == nil {
		change(&v)
		v = t.put(v)
	}
	return v, err
}

// remove is "DELETE ... WHERE key = k"; ErrNotFound without the row.
func (t *table[K, V]) remove(k K) error {
	_, err := t.get(k)
	delete(t.byKey, k)
	return err
}

// insertAll inserts every row of vs or, at the first taken key, none: all or nothing,
// as a database's transaction.
func (t *table[K, V]) insertAll(vs []V) error {
	before := maps.Clone(t.byKey)
	for _, v := range vs {
		if _, err := t.insert(v); err != nil {
			t.byKey = before
			return err
		}
	}
	return nil
}

// rows is "SELECT * WHERE where ORDER BY order" (nil: every row; unordered). It walks
// every row where a database walks an index; the callers say which where it matters.
func (t *table[K, V]) rows(where func(V) bool, order func(x, y V) int) []V {
	rows := []V{}
	for _, v := range t.byKey {
		if where == nil || where(v) {
			rows = append(rows, t.keep(v))
		}
	}
	if order != nil {
		slices.SortFunc(rows, order)
	}
	return rows
}

// first is "LIMIT n": none of rows for n <= 0.
func first[V any](rows []V, n int) []V { return rows[:min(len(rows), max(n, 0))] }

// stampThenID compares two rows as "ORDER BY stamp, id" does.
func stampThenID(t1, t2 time.Time, id1, id2 string) int {
	return cmp.Or(t1.Compare(t2), strings.Compare(id1, id2))
}

// The small tables: tokens, workers, cluster leases, named state, sessions, endpoints.
// Lists are in the order of the SQL stores' indexes: oldest first by stamp, then id.

func keepToken(t domain.Token) domain.Token {
	t.CreatedAt, t.RevokedAt, t.LastUsedAt = trunc(t.CreatedAt), trunc(t.RevokedAt), trunc(t.LastUsedAt)
	return t
}

func (s *Store) CreateToken(ctx context.Context, t domain.Token) error {
	return s.tx(ctx, func() error {
		if _, err := s.tokenByHash(t.Hash); err == nil {
			return fmt.Errorf("memory: token hash: %w", ports.ErrConflict)
		}
		_, err := s.tokens.insert(t)
		return err
	})
}

// tokenByHash walks the tokens; a database has a unique index on the hash.
func (s *Store) tokenByHash(hash string) (domain.Token, error) {
	if ts := s.tokens.rows(func(t domain.Token) bool { return t.Hash == hash }, nil); len(ts) > 0 {
		return ts[0], nil
	}
	return domain.Token{}, fmt.Errorf("memory: token: %w", ports.ErrNotFound)
}

func (s *Store) TokenByHash(ctx context.Context, hash string) (domain.Token, error) {
	return txv(s, ctx, func() (domain.Token, error) { return s.tokenByHash(hash) })
}

func (s *Store) ListTokens(ctx context.Context, owner string) ([]domain.Token, error) {
	return txv(s, ctx, func() ([]domain.Token, error) {
		return s.tokens.rows(func(t domain.Token) bool { return owner == "" || t.Owner == owner }, func(x, y domain.Token) int {
			return stampThenID(x.CreatedAt, y.CreatedAt, x.ID, y.ID)
		}), nil
	})
}

func (s *Store) RevokeToken(ctx context.Context, id string) error {
	return s.tx(ctx, func() error {
		_, err := s.tokens.update(id, func(t *domain.Token) { t.RevokedAt = cmp.Or(t.RevokedAt, s.now()) })
		return err
	})
}

func (s *Store) TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error {
	return s.do(ctx, func() {
		_, _ = s.tokens.update(id, func(t *domain.Token) { // an unknown id changes nothing
			if t.LastUsedAt.IsZero() || t.LastUsedAt.Before(trunc(staleBefore)) {
				t.LastUsedAt = at
			}
		})
	})
}

func keepWorker(w domain.Worker) domain.Worker {
	w.Stats.Endpoints = slices.Clone(w.Stats.Endpoints)
	return w
}

func (s *Store) RegisterWorker(ctx context.Context, w domain.Worker) error {
	return s.do(ctx, func() { w.StartedAt, w.HeartbeatAt = s.now(), s.now(); s.workers.put(w) })
}

func (s *Store) DeregisterWorker(ctx context.Context, id string) error {
	return s.do(ctx, func() { _ = s.workers.remove(id) }) // an unknown id is no error
}

func (s *Store) Heartbeat(ctx context.Context, id string, stats domain.WorkerStats) error {
	return s.tx(ctx, func() error {
		_, err := s.workers.update(id, func(w *domain.Worker) { w.HeartbeatAt, w.Stats = s.now(), stats })
		return err
	})
}

func (s *Store) ListWorkers(ctx context.Context) ([]domain.Worker, error) {
	return txv(s, ctx, func() ([]domain.Worker, error) {
		return s.workers.rows(nil, func(x, y domain.Worker) int { return stampThenID(x.StartedAt, y.StartedAt, x.ID, y.ID) }), nil
	})
}

func (s *Store) AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	return txv(s, ctx, func() (bool, error) {
		if l, held := s.leases[name]; held && l.holder != holder && l.expires.After(s.now()) {
			return false, nil
		}
		s.leases[name] = clusterLease{holder: holder, expires: trunc(s.now().Add(ttl))}
		return true, nil
	})
}

func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	return s.do(ctx, func() {
		if s.leases[name].holder == holder {
			delete(s.leases, name)
		}
	})
}

func (s *Store) GetState(ctx context.Context, name string) (st ports.State, ok bool, err error) {
	err = s.do(ctx, func() { st, ok = s.state[name] })
	return st, ok, err
}

func (s *Store) PutState(ctx context.Context, name, value string) error {
	return s.do(ctx, func() { s.state[name] = ports.State{Value: value, UpdatedAt: s.now()} })
}

func (s *Store) SwapState(ctx context.Context, name, old, value string) (swapped bool, err error) {
	err = s.do(ctx, func() {
		if swapped = s.state[name].Value == old; swapped {
			s.state[name] = ports.State{Value: value, UpdatedAt: s.now()}
		}
	})
	return swapped, err
}

// PublishHint and SubscribeHints are unsupported: no other process can be told.
var errNoHints = fmt.Errorf("memory: wake hints: %w", ports.ErrUnsupported)

func (s *Store) PublishHint(context.Context, time.Time) error             { return errNoHints }
func (s *Store) SubscribeHints(context.Context) (<-chan time.Time, error) { return nil, errNoHints }

func keepSession(sess ports.Session) ports.Session {
	sess.CreatedAt, sess.ExpiresAt = trunc(sess.CreatedAt), trunc(sess.ExpiresAt)
	return sess
}

func (s *Store) CreateSession(ctx context.Context, sess ports.Session) error {
	return s.tx(ctx, func() error { _, err := s.sessions.insert(sess); return err })
}

func (s *Store) SessionByHash(ctx context.Context, hash string) (ports.Session, error) {
	return txv(s, ctx, func() (ports.Session, error) { return s.sessions.get(hash) })
}

func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	return s.do(ctx, func() { _ = s.sessions.remove(hash) }) // an unknown hash is no error
}

func (s *Store) DeleteExpiredSessions(ctx context.Context, before time.Time, limit int) (int, error) {
	return txv(s, ctx, func() (int, error) {
		expired := first(s.sessions.rows(func(x ports.Session) bool { return !x.ExpiresAt.After(before) }, func(x, y ports.Session) int {
			return stampThenID(x.ExpiresAt, y.ExpiresAt, x.Hash, y.Hash)
		}), limit)
		for _, sess := range expired {
			_ = s.sessions.remove(sess.Hash)
		}
		return len(expired), nil
	})
}

// keepEndpoint: the timeout to the millisecond, as the SQL stores keep it, the times
// truncated, and a secrets slice of its own.
func keepEndpoint(e domain.Endpoint) domain.Endpoint {
	e.Timeout = e.Timeout.Truncate(time.Millisecond)
	e.CreatedAt, e.UpdatedAt = trunc(e.CreatedAt), trunc(e.UpdatedAt)
	e.Secrets = slices.Clone(e.Secrets)
	return e
}

func (s *Store) CreateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	return txv(s, ctx, func() (domain.Endpoint, error) {
		e.CreatedAt, e.UpdatedAt = s.now(), s.now()
		return s.endpoints.insert(e)
	})
}

func (s *Store) GetEndpoint(ctx context.Context, owner, name string) (domain.Endpoint, error) {
	return txv(s, ctx, func() (domain.Endpoint, error) { return s.endpoints.get(ownerKey{owner, name}) })
}

// ListEndpoints: by owner, then name, as bytes compare.
func (s *Store) ListEndpoints(ctx context.Context, owner string) ([]domain.Endpoint, error) {
	return txv(s, ctx, func() ([]domain.Endpoint, error) {
		return s.endpoints.rows(func(e domain.Endpoint) bool { return owner == "" || e.Owner == owner }, func(x, y domain.Endpoint) int {
			return cmp.Or(strings.Compare(x.Owner, y.Owner), strings.Compare(x.Name, y.Name))
		}), nil
	})
}

func (s *Store) UpdateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	return txv(s, ctx, func() (domain.Endpoint, error) {
		return s.endpoints.update(ownerKey{e.Owner, e.Name}, func(old *domain.Endpoint) {
			e.CreatedAt, e.UpdatedAt = old.CreatedAt, s.now()
			*old = e
		})
	})
}

func (s *Store) DeleteEndpoint(ctx context.Context, owner, name string) error {
	return s.tx(ctx, func() error { return s.endpoints.remove(ownerKey{owner, name}) })
}

// ImportEndpoints keeps the stamps it is given.
func (s *Store) ImportEndpoints(ctx context.Context, es []domain.Endpoint) error {
	return s.tx(ctx, func() error { return s.endpoints.insertAll(es) })
}
