package admin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app/internal/random"
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
//
// A token's LastUsedAt is recorded to the minute (domain.TokenUseResolution): when the
// stored stamp read on a cache miss is older than that, a background write moves it to
// now, so an authentication never waits for a write, and a busy token costs a write a
// minute, not one a request.
type Tokens struct {
	store ports.TokenStore
	clock ports.Clock
	cache *tokenCache
	log   *zap.Logger

	mu       sync.Mutex
	touching map[string]bool // ids whose use is being recorded
}

// TokenCacheTTL is how long a valid token is trusted without asking the store: the
// longest a revoked token keeps working.
const TokenCacheTTL = time.Second

// NewTokens builds the token use cases.
func NewTokens(store ports.TokenStore, clock ports.Clock) *Tokens {
	return &Tokens{store: store, clock: clock, cache: newTokenCache(TokenCacheTTL, 10_000), log: zap.NewNop(),
		touching: map[string]bool{}}
}

// WithLogger makes failures to record a token's use go to log (they fail nothing).
func (s *Tokens) WithLogger(log *zap.Logger) *Tokens {
	if log != nil {
		s.log = log
	}
	return s
}

// MaxTokenNote is the longest note a token may carry, in characters.
const MaxTokenNote = 200

// HashToken is the stored form of a token.
func HashToken(plain string) string {
	sum := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(sum[:])
}

// Create makes a token for owner with the given scope ("" is domain.ScopeOwner) and no
// note: Issue's shorthand.
func (s *Tokens) Create(ctx context.Context, owner string, scope domain.Scope) (string, domain.Token, error) {
	return s.Issue(ctx, owner, scope, "")
}

// Issue makes a token for owner with scope ("" is domain.ScopeOwner) and note (what it
// is for; "" for none) and returns it in plain text: the only time it exists (the store
// keeps its hash). Who may issue which scope is the caller's to check: the admin API
// lets only an admin token reach it.
func (s *Tokens) Issue(ctx context.Context, owner string, scope domain.Scope, note string) (string, domain.Token, error) {
	if scope == "" {
		scope = domain.ScopeOwner
	}
	if !scope.Valid() {
		return "", domain.Token{}, &domain.ValidationError{Field: "scope", Message: fmt.Sprintf("must be %q, %q or %q, got %q", domain.ScopeOwner, domain.ScopeAdmin, domain.ScopeAdminRead, scope)}
	}
	owner = strings.TrimSpace(owner)
	if err := validateTokenOwner(owner); err != nil {
		return "", domain.Token{}, err
	}
	note = strings.TrimSpace(note)
	if err := validateTokenNote(note); err != nil {
		return "", domain.Token{}, err
	}
	plain := TokenPrefix + random.String(32)
	t := domain.Token{
		ID:        "tok_" + random.String(9),
		Owner:     owner,
		Scope:     scope,
		Hash:      HashToken(plain),
		Note:      note,
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
	s.noteUse(t, now)
	return t, nil
}

// noteUse records in the background that t was used at now, when its stored stamp is
// older than domain.TokenUseResolution; one write at a time per token. The store's
// conditional write keeps nodes that race from writing twice.
func (s *Tokens) noteUse(t domain.Token, now time.Time) {
	staleBefore := now.Add(-domain.TokenUseResolution)
	if !t.LastUsedAt.IsZero() && !t.LastUsedAt.Before(staleBefore) {
		return
	}
	s.mu.Lock()
	if s.touching[t.ID] {
		s.mu.Unlock()
		return
	}
	s.touching[t.ID] = true
	s.mu.Unlock()
	go func() {
		defer func() { s.mu.Lock(); delete(s.touching, t.ID); s.mu.Unlock() }()
		ctx, cancel := context.WithTimeout(context.Background(), touchTimeout)
		defer cancel()
		if err := s.store.TouchToken(ctx, t.ID, now, staleBefore); err != nil {
			s.log.Warn("recording a token's last use", zap.String("token", t.ID), zap.Error(err))
		}
	}()
}

// touchTimeout bounds the background write of a token's last use.
const touchTimeout = 5 * time.Second

// List returns the owner's tokens, or every token when owner is "" (hashes only, never
// a secret), oldest first.
func (s *Tokens) List(ctx context.Context, owner string) ([]domain.Token, error) {
	return s.store.ListTokens(ctx, owner)
}

// Revoke disables a token; revoking twice is fine. Nodes that authenticated it in the
// last TokenCacheTTL keep accepting it until their entry expires.
func (s *Tokens) Revoke(ctx context.Context, id string) error {
	if err := s.store.RevokeToken(ctx, id); err != nil {
		return err
	}
	s.cache.forget(id)
	return nil
}

// validateTokenOwner is the rule for an owner a token can have: 1 to 200 bytes of UTF-8
// without control characters (the API's {owner} path parameters take the same).
func validateTokenOwner(owner string) error {
	switch {
	case owner == "":
		return &domain.ValidationError{Field: "owner", Message: "is required"}
	case len(owner) > maxOwnerLen:
		return &domain.ValidationError{Field: "owner", Message: fmt.Sprintf("is longer than %d bytes", maxOwnerLen)}
	case !printableText(owner):
		return &domain.ValidationError{Field: "owner", Message: "must be UTF-8 without control characters"}
	}
	return nil
}

func validateTokenNote(note string) error {
	switch {
	case utf8.RuneCountInString(note) > MaxTokenNote:
		return &domain.ValidationError{Field: "note", Message: fmt.Sprintf("is longer than %d characters", MaxTokenNote)}
	case !printableText(note):
		return &domain.ValidationError{Field: "note", Message: "must be UTF-8 without control characters"}
	}
	return nil
}

// printableText reports UTF-8 without control characters (tabs and newlines included):
// what a table row or a log line can show as it is.
func printableText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}
