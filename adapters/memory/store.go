// Package memory is chronos's reference store, the one to read first before writing a
// store for another database: all of ports.Store and ports.BulkCreator in memory
// behind one mutex, each method the shortest code that keeps the promise of ports
// (comments here say only what ports does not). Read store.go, then alarms.go, with
// docs/writing-an-adapter.md. Capabilities: no DatabaseClock (every now is the clock
// given to New or Open), MultiProcess in one process (several Stores on one database:
// Open), no WakeHints, TimePrecision 1µs (PostgreSQL's). It walks a map where a
// database needs an index (claims, counts, retention): fine at a memory store's sizes.
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

// Precision is the store's TimePrecision.
const Precision = time.Microsecond

// ErrClosed is returned by every call after Close.
var ErrClosed = errors.New("memory: store is closed")

// Store is a handle on an in-memory database, as a connection pool is on a real one.
// Every method runs in tx, under the database's one mutex from start to end, so each
// is one transaction, whichever Store on the database runs it.
type Store struct {
	*database
	clock  ports.Clock // the store's notion of now
	closed bool        // this handle's, guarded by mu
}

// database is the tables and the mutex that every Store opened on them shares.
type database struct {
	mu        sync.Mutex
	alarms    map[string]domain.Alarm   // by id: the table
	keys      map[ownerKey]string       // (owner, idempotency key) -> id: the unique index
	events    map[string][]domain.Event // by alarm id, oldest (lowest event id) first
	lastEvent int64                     // the event id sequence
	tokens    map[string]domain.Token   // by hash
	workers   map[string]domain.Worker  // by id
	leases    map[string]clusterLease   // by name
	state     map[string]ports.State    // by name
	sessions  map[string]ports.Session  // by hash
	endpoints map[ownerName]domain.Endpoint
}

type ownerName struct{ owner, name string }

type ownerKey struct{ owner, key string }

type clusterLease struct {
	holder  string
	expires time.Time
}

var _ ports.Store = (*Store)(nil)
var _ ports.BulkCreator = (*Store)(nil)

// New returns a Store on a new, empty database; a nil clock means ports.SystemClock{}.
func New(clock ports.Clock) *Store {
	s := &Store{database: &database{alarms: map[string]domain.Alarm{},
		keys: map[ownerKey]string{}, events: map[string][]domain.Event{}, tokens: map[string]domain.Token{},
		workers: map[string]domain.Worker{}, leases: map[string]clusterLease{}, state: map[string]ports.State{},
		sessions:  map[string]ports.Session{},
		endpoints: map[ownerName]domain.Endpoint{}}}
	return s.Open(clock)
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

// Capabilities: see the package comment. MultiProcess here means several Stores (Open)
// on one database in one process; nothing is shared between processes.
func (s *Store) Capabilities() ports.Capabilities {
	return ports.Capabilities{MultiProcess: true, TimePrecision: Precision}
}

// tx runs fn as one transaction (as the SQL stores' s.write does): under the lock, on an
// open store. A done context comes back untouched, never wrapped; fn's error as is.
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

// txv is tx for an fn with a result.
func txv[T any](s *Store, ctx context.Context, fn func() (T, error)) (v T, err error) {
	err = s.tx(ctx, func() error { v, err = fn(); return err })
	return v, err
}

func (s *Store) Now(ctx context.Context) (time.Time, error) {
	return txv(s, ctx, func() (time.Time, error) { return s.now(), nil })
}

func (s *Store) Ping(ctx context.Context) error { return s.tx(ctx, func() error { return nil }) }

// Close makes later calls return ErrClosed. Closing twice is no error.
func (s *Store) Close() error { s.mu.Lock(); defer s.mu.Unlock(); s.closed = true; return nil }

func (s *Store) now() time.Time { return trunc(s.clock.Now()) }

// trunc is t as kept: UTC, at Precision (counted from the zero time, which stays zero).
func trunc(t time.Time) time.Time { return t.UTC().Truncate(Precision) }

// keep is a as stored: times truncated, so what a caller gets back (a lease above all)
// equals what is kept; the payload copied in, and by out again on the way out, so a
// caller changing its slice cannot change the store. The series' start and end are
// kept to the nanosecond, in UTC: the SQL stores keep them as text, not in a column of
// their precision.
func keep(a domain.Alarm) domain.Alarm {
	for _, p := range []*time.Time{&a.FireAt, &a.NextFireAt, &a.ScheduledFor, &a.ClaimedAt, &a.CreatedAt, &a.UpdatedAt, &a.LastFiredAt, &a.PausedUntil} {
		*p = trunc(*p)
	}
	for _, p := range []*time.Time{&a.Series.StartAt, &a.Series.EndAt} {
		if !p.IsZero() {
			*p = p.UTC()
		}
	}
	return out(a)
}

func out(a domain.Alarm) domain.Alarm { a.Payload = slices.Clone(a.Payload); return a }

// remove deletes an alarm from the table and its index, and its events (how many).
func (s *Store) remove(id string) int {
	a, events := s.alarms[id], len(s.events[id])
	delete(s.alarms, id)
	delete(s.keys, ownerKey{a.Owner, a.IdempotencyKey})
	delete(s.events, id)
	return events
}

// appendEvents numbers evs from the store's sequence and appends them to their alarms.
func (s *Store) appendEvents(evs []domain.Event) {
	for _, ev := range evs {
		s.lastEvent++
		ev.ID, ev.At, ev.ScheduledFor = s.lastEvent, trunc(ev.At), trunc(ev.ScheduledFor)
		s.events[ev.AlarmID] = append(s.events[ev.AlarmID], ev)
	}
}

// stampThenID compares two rows as "ORDER BY stamp, id" does.
func stampThenID(t1, t2 time.Time, id1, id2 string) int {
	return cmp.Or(t1.Compare(t2), strings.Compare(id1, id2))
}

// The small tables: tokens, workers, cluster leases, named state. Lists are oldest
// first by their stamp, then id, as the SQL stores order them.

func (s *Store) CreateToken(ctx context.Context, t domain.Token) error {
	return s.tx(ctx, func() error {
		for _, u := range s.tokens {
			if u.ID == t.ID || u.Hash == t.Hash {
				return fmt.Errorf("memory: token %q: %w", t.ID, ports.ErrConflict)
			}
		}
		t.CreatedAt, t.RevokedAt, t.LastUsedAt = trunc(t.CreatedAt), trunc(t.RevokedAt), trunc(t.LastUsedAt)
		s.tokens[t.Hash] = t
		return nil
	})
}

func (s *Store) TokenByHash(ctx context.Context, hash string) (domain.Token, error) {
	return txv(s, ctx, func() (domain.Token, error) {
		if t, ok := s.tokens[hash]; ok {
			return t, nil
		}
		return domain.Token{}, fmt.Errorf("memory: token: %w", ports.ErrNotFound)
	})
}

func (s *Store) ListTokens(ctx context.Context, owner string) ([]domain.Token, error) {
	return txv(s, ctx, func() ([]domain.Token, error) {
		all := slices.SortedFunc(maps.Values(s.tokens), byCreated)
		if owner == "" {
			return all, nil
		}
		return slices.DeleteFunc(all, func(t domain.Token) bool { return t.Owner != owner }), nil
	})
}
func byCreated(x, y domain.Token) int { return stampThenID(x.CreatedAt, y.CreatedAt, x.ID, y.ID) }

func (s *Store) RevokeToken(ctx context.Context, id string) error {
	return s.tx(ctx, func() error {
		for hash, t := range s.tokens {
			if t.ID == id {
				if t.RevokedAt.IsZero() { // revoking a revoked token changes nothing
					t.RevokedAt = s.now()
					s.tokens[hash] = t
				}
				return nil
			}
		}
		return fmt.Errorf("memory: token %q: %w", id, ports.ErrNotFound)
	})
}

func (s *Store) TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error {
	return s.tx(ctx, func() error {
		for hash, t := range s.tokens {
			if t.ID == id && (t.LastUsedAt.IsZero() || t.LastUsedAt.Before(trunc(staleBefore))) {
				t.LastUsedAt = trunc(at)
				s.tokens[hash] = t
			}
		}
		return nil
	})
}

func (s *Store) RegisterWorker(ctx context.Context, w domain.Worker) error {
	return s.tx(ctx, func() error { w.StartedAt, w.HeartbeatAt = s.now(), s.now(); s.workers[w.ID] = w; return nil })
}

func (s *Store) Heartbeat(ctx context.Context, id string, stats domain.WorkerStats) error {
	return s.tx(ctx, func() error {
		if w, ok := s.workers[id]; ok {
			w.HeartbeatAt, w.Stats = s.now(), stats
			s.workers[id] = w
			return nil
		}
		return fmt.Errorf("memory: worker %q: %w", id, ports.ErrNotFound)
	})
}
func (s *Store) DeregisterWorker(ctx context.Context, id string) error {
	return s.tx(ctx, func() error { delete(s.workers, id); return nil })
}

func (s *Store) ListWorkers(ctx context.Context) ([]domain.Worker, error) {
	return txv(s, ctx, func() ([]domain.Worker, error) { return slices.SortedFunc(maps.Values(s.workers), byStarted), nil })
}
func byStarted(x, y domain.Worker) int { return stampThenID(x.StartedAt, y.StartedAt, x.ID, y.ID) }

// AcquireLease: a lease is free once now reaches its expiry.
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
	return s.tx(ctx, func() error {
		if l, ok := s.leases[name]; ok && l.holder == holder {
			delete(s.leases, name)
		}
		return nil
	})
}

func (s *Store) GetState(ctx context.Context, name string) (st ports.State, ok bool, err error) {
	err = s.tx(ctx, func() error { st, ok = s.state[name]; return nil })
	return st, ok, err
}
func (s *Store) PutState(ctx context.Context, name, value string) error {
	return s.tx(ctx, func() error { s.state[name] = ports.State{Value: value, UpdatedAt: s.now()}; return nil })
}

// PublishHint and SubscribeHints are unsupported: no other process can be told.
var errNoHints = fmt.Errorf("memory: wake hints: %w", ports.ErrUnsupported)

func (s *Store) PublishHint(context.Context, time.Time) error             { return errNoHints }
func (s *Store) SubscribeHints(context.Context) (<-chan time.Time, error) { return nil, errNoHints }
