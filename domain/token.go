package domain

import "time"

// Scope is what a token may do.
type Scope string

const (
	// ScopeOwner: the /v1 routes, on the token owner's alarms only.
	ScopeOwner Scope = "owner"
	// ScopeAdmin: the /v1 routes as its owner, and every /admin/v1 route.
	ScopeAdmin Scope = "admin"
	// ScopeAdminRead: the /v1 routes as its owner, and the /admin/v1 routes that
	// change nothing (overview, lists, views).
	ScopeAdminRead Scope = "admin:read"
)

// Valid reports whether s is one of the scopes above.
func (s Scope) Valid() bool {
	return s == ScopeOwner || s == ScopeAdmin || s == ScopeAdminRead
}

// Token is an API credential. Only Hash (hex SHA-256 of the secret) is ever stored.
type Token struct {
	ID    string
	Owner string
	Scope Scope
	Hash  string
	// Note says what the token is for ("billing service, prod"); "" for none.
	Note      string
	CreatedAt time.Time
	RevokedAt time.Time // zero while valid
	// LastUsedAt is when the token last authenticated a request, to the minute
	// (TokenUseResolution); zero when it never did.
	LastUsedAt time.Time
}

// TokenUseResolution is how stale a token's LastUsedAt may be: a use is recorded only
// when the last recorded one is at least this old, so authenticating costs no write.
const TokenUseResolution = time.Minute

// Revoked reports whether the token may no longer be used.
func (t Token) Revoked() bool { return !t.RevokedAt.IsZero() }

// CanReadAdmin reports whether the token may call the read-only admin routes.
func (t Token) CanReadAdmin() bool { return t.Scope == ScopeAdmin || t.Scope == ScopeAdminRead }

// CanChangeAdmin reports whether the token may call the admin routes that change things.
func (t Token) CanChangeAdmin() bool { return t.Scope == ScopeAdmin }
