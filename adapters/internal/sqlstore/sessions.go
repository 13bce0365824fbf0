package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// CreateSession stores a dashboard session (its id's hash only).
func (e *Engine[T]) CreateSession(ctx context.Context, sess ports.Session) error {
	_, err := e.Write.Exec(ctx, e.SQL.CreateSession, sess.Hash, sess.TokenHash, e.TimeArg(sess.CreatedAt), e.TimeArg(sess.ExpiresAt))
	return e.mapError(err)
}

// SessionByHash finds a session by its id's hash, expired or not.
func (e *Engine[T]) SessionByHash(ctx context.Context, hash string) (ports.Session, error) {
	sess := ports.Session{Hash: hash}
	var created, expires T
	err := e.Read.QueryRow(ctx, e.SQL.SessionByHash, hash).Scan(&sess.TokenHash, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.Session{}, e.notFoundByHash("session")
	}
	if err != nil {
		return ports.Session{}, e.mapError(err)
	}
	sess.CreatedAt, sess.ExpiresAt = e.ToTime(created), e.ToTime(expires)
	return sess, nil
}

// DeleteSession removes a session; an unknown hash changes nothing.
func (e *Engine[T]) DeleteSession(ctx context.Context, hash string) error {
	_, err := e.Write.Exec(ctx, e.SQL.DeleteSession, hash)
	return e.mapError(err)
}

// DeleteExpiredSessions removes up to limit sessions expired at before, earliest first,
// walking ui_sessions_expiry.
func (e *Engine[T]) DeleteExpiredSessions(ctx context.Context, before time.Time, limit int) (int, error) {
	n, err := e.Write.Exec(ctx, e.SQL.DeleteExpiredSessions, e.TimeArg(before), limit)
	return int(n), e.mapError(err)
}
