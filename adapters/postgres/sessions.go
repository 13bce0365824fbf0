package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/chronoshq/chronos/ports"
)

var _ ports.SessionStore = (*Store)(nil)

// CreateSession stores a dashboard session (its id's hash only).
func (s *Store) CreateSession(ctx context.Context, sess ports.Session) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO ui_sessions (hash, token_hash, created_at, expires_at)
		VALUES ($1, $2, $3, $4)`, sess.Hash, sess.TokenHash, timeArg(sess.CreatedAt), timeArg(sess.ExpiresAt))
	return mapError(err)
}

// SessionByHash finds a session by its id's hash, expired or not.
func (s *Store) SessionByHash(ctx context.Context, hash string) (ports.Session, error) {
	sess := ports.Session{Hash: hash}
	var created, expires pgtype.Timestamptz
	err := s.pool.QueryRow(ctx, `SELECT token_hash, created_at, expires_at FROM ui_sessions WHERE hash = $1`, hash).
		Scan(&sess.TokenHash, &created, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		// The hash stays out of the message: error text ends up in logs.
		return ports.Session{}, fmt.Errorf("postgres: no session has this hash: %w", ports.ErrNotFound)
	}
	if err != nil {
		return ports.Session{}, mapError(err)
	}
	sess.CreatedAt, sess.ExpiresAt = tsTime(created), tsTime(expires)
	return sess, nil
}

// DeleteSession removes a session; an unknown hash changes nothing.
func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM ui_sessions WHERE hash = $1`, hash)
	return mapError(err)
}

// DeleteExpiredSessions removes up to limit sessions expired at before, earliest first,
// walking ui_sessions_expiry.
func (s *Store) DeleteExpiredSessions(ctx context.Context, before time.Time, limit int) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM ui_sessions WHERE hash IN
		(SELECT hash FROM ui_sessions WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`, timeArg(before), limit)
	if err != nil {
		return 0, mapError(err)
	}
	return int(tag.RowsAffected()), nil
}
