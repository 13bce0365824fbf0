package memory

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/chronoshq/chronos/ports"
)

func (s *Store) CreateSession(ctx context.Context, sess ports.Session) error {
	return s.tx(ctx, func() error {
		if _, ok := s.sessions[sess.Hash]; ok {
			return fmt.Errorf("memory: session: %w", ports.ErrConflict)
		}
		sess.CreatedAt, sess.ExpiresAt = trunc(sess.CreatedAt), trunc(sess.ExpiresAt)
		s.sessions[sess.Hash] = sess
		return nil
	})
}

func (s *Store) SessionByHash(ctx context.Context, hash string) (ports.Session, error) {
	return txv(s, ctx, func() (ports.Session, error) {
		if sess, ok := s.sessions[hash]; ok {
			return sess, nil
		}
		return ports.Session{}, fmt.Errorf("memory: session: %w", ports.ErrNotFound)
	})
}

func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	return s.tx(ctx, func() error { delete(s.sessions, hash); return nil })
}

// DeleteExpiredSessions removes the earliest expired first, as the SQL stores' index
// order does.
func (s *Store) DeleteExpiredSessions(ctx context.Context, before time.Time, limit int) (int, error) {
	return txv(s, ctx, func() (int, error) {
		expired := slices.SortedFunc(maps.Values(s.sessions), func(x, y ports.Session) int {
			return stampThenID(x.ExpiresAt, y.ExpiresAt, x.Hash, y.Hash)
		})
		n := 0
		for _, sess := range expired {
			if n == limit || sess.ExpiresAt.After(before) {
				break
			}
			delete(s.sessions, sess.Hash)
			n++
		}
		return n, nil
	})
}
