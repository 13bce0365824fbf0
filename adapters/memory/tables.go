package memory

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// The small tables: tokens, workers, cluster leases, named state, sessions, endpoints.
// Lists are oldest first by their stamp, then id, as the SQL stores order them.

func (s *Store) CreateToken(ctx context.Context, t domain.Token) error {
	t.CreatedAt, t.RevokedAt, t.LastUsedAt = trunc(t.CreatedAt), trunc(t.RevokedAt), trunc(t.LastUsedAt)
	return s.tx(ctx, func() error {
		if _, err := s.tokenByHash(t.Hash); err == nil {
			return fmt.Errorf("memory: token hash: %w", ports.ErrConflict)
		}
		return s.tokens.insert(t.ID, t)
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
		if t, ok := s.tokens[id]; ok && (t.LastUsedAt.IsZero() || t.LastUsedAt.Before(trunc(staleBefore))) {
			t.LastUsedAt = trunc(at)
			s.tokens[id] = t
		}
	})
}

func (s *Store) RegisterWorker(ctx context.Context, w domain.Worker) error {
	return s.do(ctx, func() { w.StartedAt, w.HeartbeatAt = s.now(), s.now(); s.workers[w.ID] = w })
}

func (s *Store) DeregisterWorker(ctx context.Context, id string) error {
	return s.do(ctx, func() { delete(s.workers, id) })
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

// PublishHint and SubscribeHints are unsupported: no other process can be told.
var errNoHints = fmt.Errorf("memory: wake hints: %w", ports.ErrUnsupported)

func (s *Store) PublishHint(context.Context, time.Time) error             { return errNoHints }
func (s *Store) SubscribeHints(context.Context) (<-chan time.Time, error) { return nil, errNoHints }

func (s *Store) CreateSession(ctx context.Context, sess ports.Session) error {
	sess.CreatedAt, sess.ExpiresAt = trunc(sess.CreatedAt), trunc(sess.ExpiresAt)
	return s.tx(ctx, func() error { return s.sessions.insert(sess.Hash, sess) })
}

func (s *Store) SessionByHash(ctx context.Context, hash string) (ports.Session, error) {
	return txv(s, ctx, func() (ports.Session, error) { return s.sessions.get(hash) })
}

func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	return s.do(ctx, func() { delete(s.sessions, hash) })
}

// DeleteExpiredSessions removes the earliest expired first, as the SQL stores' index does.
func (s *Store) DeleteExpiredSessions(ctx context.Context, before time.Time, limit int) (int, error) {
	return txv(s, ctx, func() (int, error) {
		expired := first(s.sessions.rows(func(x ports.Session) bool { return !x.ExpiresAt.After(before) }, func(x, y ports.Session) int {
			return stampThenID(x.ExpiresAt, y.ExpiresAt, x.Hash, y.Hash)
		}), limit)
		for _, sess := range expired {
			delete(s.sessions, sess.Hash)
		}
		return len(expired), nil
	})
}

// Endpoints go in and out through keepEndpoint: the timeout to the millisecond, as the
// SQL stores keep it, the times truncated, and a secrets slice of the caller's own.
func keepEndpoint(e domain.Endpoint) domain.Endpoint {
	e.Timeout = e.Timeout.Truncate(time.Millisecond)
	e.CreatedAt, e.UpdatedAt = trunc(e.CreatedAt), trunc(e.UpdatedAt)
	e.Secrets = slices.Clone(e.Secrets)
	return e
}

func (s *Store) CreateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	return txv(s, ctx, func() (domain.Endpoint, error) {
		e.CreatedAt, e.UpdatedAt = s.now(), s.now()
		if err := s.endpoints.insert(ownerKey{e.Owner, e.Name}, keepEndpoint(e)); err != nil {
			return domain.Endpoint{}, err
		}
		return keepEndpoint(e), nil
	})
}

func (s *Store) GetEndpoint(ctx context.Context, owner, name string) (domain.Endpoint, error) {
	return txv(s, ctx, func() (domain.Endpoint, error) {
		e, err := s.endpoints.get(ownerKey{owner, name})
		return keepEndpoint(e), err
	})
}

// ListEndpoints: by owner, then name, as bytes compare.
func (s *Store) ListEndpoints(ctx context.Context, owner string) ([]domain.Endpoint, error) {
	return txv(s, ctx, func() ([]domain.Endpoint, error) {
		return each(s.endpoints.rows(func(e domain.Endpoint) bool { return owner == "" || e.Owner == owner }, func(x, y domain.Endpoint) int {
			return cmp.Or(strings.Compare(x.Owner, y.Owner), strings.Compare(x.Name, y.Name))
		}), keepEndpoint), nil
	})
}

func (s *Store) UpdateEndpoint(ctx context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	return txv(s, ctx, func() (domain.Endpoint, error) {
		stored, err := s.endpoints.update(ownerKey{e.Owner, e.Name}, func(old *domain.Endpoint) {
			e.CreatedAt, e.UpdatedAt = old.CreatedAt, s.now()
			*old = keepEndpoint(e)
		})
		return keepEndpoint(stored), err
	})
}

func (s *Store) DeleteEndpoint(ctx context.Context, owner, name string) error {
	return s.tx(ctx, func() error {
		_, err := s.endpoints.get(ownerKey{owner, name})
		delete(s.endpoints, ownerKey{owner, name})
		return err
	})
}

// ImportEndpoints writes into a copy of the table, kept only when every row went in:
// all or nothing, as a database's transaction.
func (s *Store) ImportEndpoints(ctx context.Context, es []domain.Endpoint) error {
	return s.tx(ctx, func() error {
		endpoints := maps.Clone(s.endpoints)
		for _, e := range es {
			if err := endpoints.insert(ownerKey{e.Owner, e.Name}, keepEndpoint(e)); err != nil {
				return err
			}
		}
		s.endpoints = endpoints
		return nil
	})
}
