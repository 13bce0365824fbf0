package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/ports"
)

var _ ports.SessionStore = (*Store)(nil)

// CreateSession stores a dashboard session (its id's hash only).
func (s *Store) CreateSession(ctx context.Context, sess ports.Session) error {
	_, err := s.writer.ExecContext(ctx, `INSERT INTO ui_sessions (hash, token_hash, created_at, expires_at)
		VALUES (?, ?, ?, ?)`, sess.Hash, sess.TokenHash, toDB(sess.CreatedAt), toDB(sess.ExpiresAt))
	return mapError(err)
}

// SessionByHash finds a session by its id's hash, expired or not.
func (s *Store) SessionByHash(ctx context.Context, hash string) (ports.Session, error) {
	sess := ports.Session{Hash: hash}
	var created, expires sql.NullInt64
	err := s.reader.QueryRowContext(ctx, `SELECT token_hash, created_at, expires_at FROM ui_sessions WHERE hash = ?`, hash).
		Scan(&sess.TokenHash, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		// The hash stays out of the message: error text ends up in logs.
		return ports.Session{}, fmt.Errorf("sqlite: no session has this hash: %w", ports.ErrNotFound)
	}
	if err != nil {
		return ports.Session{}, mapError(err)
	}
	sess.CreatedAt, sess.ExpiresAt = fromDB(created), fromDB(expires)
	return sess, nil
}

// DeleteSession removes a session; an unknown hash changes nothing.
func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	_, err := s.writer.ExecContext(ctx, `DELETE FROM ui_sessions WHERE hash = ?`, hash)
	return mapError(err)
}

// DeleteExpiredSessions removes up to limit sessions expired at before, earliest first,
// walking ui_sessions_expiry.
func (s *Store) DeleteExpiredSessions(ctx context.Context, before time.Time, limit int) (int, error) {
	n, err := sqlrow.Affected(s.writer.ExecContext(ctx, `DELETE FROM ui_sessions WHERE hash IN
		(SELECT hash FROM ui_sessions WHERE expires_at <= ? ORDER BY expires_at LIMIT ? + 0)`, toDB(before), limit))
	return int(n), mapError(err)
}
