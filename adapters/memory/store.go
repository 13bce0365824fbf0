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
	alarms    table[string, domain.Alarm] // by id
	events    map[string][]domain.Event   // by alarm id, oldest (lowest event id) first
	lastEvent int64                       // the event id sequence
	tokens    table[string, domain.Token] // by id
	workers   table[string, domain.Worker]
	leases    table[string, clusterLease]
	state     table[string, ports.State]
	sessions  table[string, ports.Session] // by hash
	endpoints table[ownerKey, domain.Endpoint]
}

type ownerKey struct{ owner, name string } // an endpoint's: a name unique per owner

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
	db := &database{alarms: table[string, domain.Alarm]{}, events: map[string][]domain.Event{},
		tokens: table[string, domain.Token]{}, workers: table[string, domain.Worker]{}, leases: table[string, clusterLease]{},
		state: table[string, ports.State]{}, sessions: table[string, ports.Session]{}, endpoints: table[ownerKey, domain.Endpoint]{}}
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

// table is one table: rows by primary key. Rows are values, so a caller's copy never
// aliases the stored one (slices inside a row are copied by the table's keep and out).
type table[K comparable, V any] map[K]V

// insert is an INSERT that a taken key refuses with ErrConflict.
func (t table[K, V]) insert(k K, v V) error {
	if _, taken := t[k]; taken {
		return fmt.Errorf("memory: %v: %w", k, ports.ErrConflict)
	}
	t[k] = v
	return nil
}

// get is the row with key k; ErrNotFound without one.
func (t table[K, V]) get(k K) (V, error) {
	v, ok := t[k]
	if !ok {
		return v, fmt.Errorf("memory: %v: %w", k, ports.ErrNotFound)
	}
	return v, nil
}

// update is "UPDATE ... WHERE key = k": the row as change leaves it; ErrNotFound without one.
func (t table[K, V]) update(k K, change func(*V)) (V, error) {
	v, err := t.get(k)
	if err == nil {
		change(&v)
		t[k] = v
	}
	return v, err
}

// rows is "SELECT * WHERE where ORDER BY order" (nil: every row; unordered). It walks
// every row where a database walks an index; the callers say which where it matters.
func (t table[K, V]) rows(where func(V) bool, order func(x, y V) int) []V {
	rows := []V{}
	for _, v := range t {
		if where == nil || where(v) {
			rows = append(rows, v)
		}
	}
	if order != nil {
		slices.SortFunc(rows, order)
	}
	return rows
}

// first is "LIMIT n": none of rows for n <= 0.
func first[V any](rows []V, n int) []V { return rows[:min(len(rows), max(n, 0))] }

// each replaces each of rows with f of it: a table's out on the way out.
func each[V any](rows []V, f func(V) V) []V {
	for i, v := range rows {
		rows[i] = f(v)
	}
	return rows
}

// stampThenID compares two rows as "ORDER BY stamp, id" does.
func stampThenID(t1, t2 time.Time, id1, id2 string) int {
	return cmp.Or(t1.Compare(t2), strings.Compare(id1, id2))
}
