package domain

import "time"

// Token is an API credential. Only Hash (hex SHA-256 of the secret) is ever stored.
type Token struct {
	ID        string
	Owner     string
	Admin     bool
	Hash      string
	CreatedAt time.Time
	RevokedAt time.Time // zero while valid
}

// Revoked reports whether the token may no longer be used.
func (t Token) Revoked() bool { return !t.RevokedAt.IsZero() }
