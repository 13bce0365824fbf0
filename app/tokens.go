package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// ErrUnauthenticated: the bearer token is missing, unknown or revoked.
var ErrUnauthenticated = ports.ErrUnauthenticated

// TokenPrefix starts every token, so secrets are recognisable in logs and scanners.
const TokenPrefix = "chr_"

// Tokens creates, checks and revokes API tokens. Only SHA-256 hashes are stored: a
// token has 256 random bits, so a fast hash is enough (no password stretching needed).
type Tokens struct {
	store ports.Store
	clock ports.Clock
}

// NewTokens builds the token use cases.
func NewTokens(store ports.Store, clock ports.Clock) *Tokens {
	return &Tokens{store: store, clock: clock}
}

// HashToken is the stored form of a token.
func HashToken(plain string) string {
	sum := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(sum[:])
}

// Create makes a token for owner and returns it in plain text: the only time it exists.
func (s *Tokens) Create(ctx context.Context, owner string, admin bool) (string, domain.Token, error) {
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
		Admin:     admin,
		Hash:      HashToken(plain),
		CreatedAt: s.clock.Now(),
	}
	if err := s.store.CreateToken(ctx, t); err != nil {
		return "", domain.Token{}, fmt.Errorf("storing token: %w", err)
	}
	return plain, t, nil
}

// Authenticate resolves a plain token to its record; ErrUnauthenticated when missing,
// unknown or revoked. Store failures are returned as they are (a 503, not a 401).
func (s *Tokens) Authenticate(ctx context.Context, plain string) (domain.Token, error) {
	if plain == "" {
		return domain.Token{}, ErrUnauthenticated
	}
	t, err := s.store.TokenByHash(ctx, HashToken(plain))
	if errors.Is(err, ports.ErrNotFound) {
		return domain.Token{}, ErrUnauthenticated
	}
	if err != nil {
		return domain.Token{}, err
	}
	if t.Revoked() {
		return domain.Token{}, ErrUnauthenticated
	}
	return t, nil
}

// List returns every token (hashes only), oldest first.
func (s *Tokens) List(ctx context.Context) ([]domain.Token, error) { return s.store.ListTokens(ctx) }

// Revoke disables a token; revoking twice is fine.
func (s *Tokens) Revoke(ctx context.Context, id string) error { return s.store.RevokeToken(ctx, id) }
