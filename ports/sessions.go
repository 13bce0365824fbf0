package ports

import (
	"context"
	"time"
)

// SessionStore keeps the dashboard's sign-ins. The browser holds a random session id;
// the store keeps only its SHA-256, so whoever reads the table (a backup, a read-only
// database user) learns nothing a browser could present.
type SessionStore interface {
	// CreateSession stores s. ErrConflict when a session with s.Hash exists.
	CreateSession(ctx context.Context, s Session) error
	// SessionByHash returns the session whose id hashes to hash, expired or not (the
	// caller compares ExpiresAt with its clock). ErrNotFound when there is none.
	SessionByHash(ctx context.Context, hash string) (Session, error)
	// DeleteSession removes the session (a sign-out); an unknown hash is not an error.
	DeleteSession(ctx context.Context, hash string) error
	// DeleteExpiredSessions removes up to limit sessions whose ExpiresAt is at or before
	// `before`, and returns how many it removed: fewer than limit means none is left.
	// Its cost is the rows it removes (an index on the expiry), never a walk of the table.
	DeleteExpiredSessions(ctx context.Context, before time.Time, limit int) (int, error)
}

// Session is one dashboard sign-in.
type Session struct {
	Hash      string    // hex SHA-256 of the session id the cookie carries
	TokenHash string    // the admin token it was opened with (its hash, as api_tokens keeps it)
	CreatedAt time.Time // when it was opened
	ExpiresAt time.Time // when it ends, whatever happens before
}
