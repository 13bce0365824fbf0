package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// TokenPrefix starts every token, so secrets are recognisable in logs and scanners.
const TokenPrefix = "chr_"

// Tokens creates, checks and revokes API tokens. Only SHA-256 hashes are stored: a
// token has 256 random bits, so a fast hash is enough (no password stretching needed).
//
// Authenticate remembers a token it found valid for at most TokenCacheTTL, so a busy
// client's requests do not each cost a store query; a token revoked (on any node)
// therefore stops working within TokenCacheTTL. Unknown and revoked tokens are never
// remembered: a token created a moment ago works at once, and a revoked one is checked
// against the store every time after its entry expires.
type Tokens struct {
	store ports.Store
	clock ports.Clock
	cache *tokenCache
}

// TokenCacheTTL is how long a valid token is trusted without asking the store: the
// longest a revoked token keeps working.
const TokenCacheTTL = time.Second

// NewTokens builds the token use cases.
func NewTokens(store ports.Store, clock ports.Clock) *Tokens {
	return &Tokens{store: store, clock: clock, cache: newTokenCache(TokenCacheTTL, 10_000)}
}

// HashToken is the stored form of a token.
func HashToken(plain string) string {
	sum := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(sum[:])
}

// Create makes a token for owner with the given scope ("" is domain.ScopeOwner) and
// returns it in plain text: the only time it exists.
func (s *Tokens) Create(ctx context.Context, owner string, scope domain.Scope) (string, domain.Token, error) {
	if scope == "" {
		scope = domain.ScopeOwner
	}
	if !scope.Valid() {
		return "", domain.Token{}, &domain.ValidationError{Field: "scope", Message: fmt.Sprintf("must be %q, %q or %q, got %q", domain.ScopeOwner, domain.ScopeAdmin, domain.ScopeAdminRead, scope)}
	}
	owner = strings.TrimSpace(owner)
	if owner == "" {
		return "", domain.Token{}, &domain.ValidationError{Field: "owner", Message: "is required"}
	}
	if len(owner) > 200 {
		return "", domain.Token{}, &domain.ValidationError{Field: "owner", Message: "is longer than 200 characters"}
	}
	plain := TokenPrefix + randomString(32)
	t := domain.Token{
		ID:        "tok_" + randomString(9),
		Owner:     owner,
		Scope:     scope,
		Hash:      HashToken(plain),
		CreatedAt: s.clock.Now(),
	}
	if err := s.store.CreateToken(ctx, t); err != nil {
		return "", domain.Token{}, fmt.Errorf("storing token: %w", err)
	}
	return plain, t, nil
}

// Authenticate resolves a plain token to its record; domain.ErrUnauthenticated when missing,
// unknown or revoked. Store failures are returned as they are (a 503, not a 401).
func (s *Tokens) Authenticate(ctx context.Context, plain string) (domain.Token, error) {
	if plain == "" {
		return domain.Token{}, domain.ErrUnauthenticated
	}
	return s.AuthenticateHash(ctx, HashToken(plain))
}

// AuthenticateHash is Authenticate for a token known by its hash: a dashboard session
// keeps the hash of the token it was opened with, never the token, and checks it on
// every request, so a revoked token ends its sessions within TokenCacheTTL too.
func (s *Tokens) AuthenticateHash(ctx context.Context, hash string) (domain.Token, error) {
	if hash == "" {
		return domain.Token{}, domain.ErrUnauthenticated
	}
	now := s.clock.Now()
	if t, ok := s.cache.get(hash, now); ok {
		return t, nil
	}
	t, err := s.store.TokenByHash(ctx, hash)
	if errors.Is(err, ports.ErrNotFound) {
		return domain.Token{}, domain.ErrUnauthenticated
	}
	if err != nil {
		return domain.Token{}, err
	}
	if t.Revoked() {
		return domain.Token{}, domain.ErrUnauthenticated
	}
	s.cache.put(hash, t, now)
	return t, nil
}

// List returns every token (hashes only), oldest first.
func (s *Tokens) List(ctx context.Context) ([]domain.Token, error) { return s.store.ListTokens(ctx) }

// Revoke disables a token; revoking twice is fine.
func (s *Tokens) Revoke(ctx context.Context, id string) error { return s.store.RevokeToken(ctx, id) }
