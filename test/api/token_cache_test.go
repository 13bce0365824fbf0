package api_test

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/domain"
)

type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// A token revoked on another node keeps working on this one for at most
// admin.TokenCacheTTL after this node last checked it, and not a moment longer.
func TestRevokedTokenStopsWithinTheCacheTTL(t *testing.T) {
	ctx := t.Context()
	store, err := sqlite.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "chronos.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	clock := &manualClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	node := admin.NewTokens(store, clock)
	other := admin.NewTokens(store, clock) // another node, sharing the store

	plain, tok, err := other.Create(ctx, "alice", domain.ScopeOwner)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := node.Authenticate(ctx, plain); err != nil {
		t.Fatalf("a new token: %v", err)
	}
	if err := other.Revoke(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	clock.advance(admin.TokenCacheTTL - time.Millisecond)
	if _, err := node.Authenticate(ctx, plain); err != nil {
		t.Fatalf("within the cache TTL the checked token was refused: %v (want it still trusted)", err)
	}
	clock.advance(time.Millisecond)
	if _, err := node.Authenticate(ctx, plain); !errors.Is(err, domain.ErrUnauthenticated) {
		t.Fatalf("a token revoked %s ago still works: %v", admin.TokenCacheTTL, err)
	}
	if _, err := other.Authenticate(ctx, plain); !errors.Is(err, domain.ErrUnauthenticated) {
		t.Fatalf("the revoking node accepts the revoked token: %v", err)
	}
}

// The node that revokes a token refuses it at once, even with the token in its cache.
func TestRevokedTokenStopsAtOnceOnTheRevokingNode(t *testing.T) {
	ctx := t.Context()
	store, err := sqlite.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "chronos.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	node := admin.NewTokens(store, &manualClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)})
	plain, tok, err := node.Create(ctx, "alice", domain.ScopeOwner)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := node.Authenticate(ctx, plain); err != nil {
		t.Fatal(err)
	}
	if err := node.Revoke(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := node.Authenticate(ctx, plain); !errors.Is(err, domain.ErrUnauthenticated) {
		t.Fatalf("the revoking node accepts the token it just revoked: %v", err)
	}
}

// A token's use is recorded at its first authentication, then again only once the
// recorded one is more than domain.TokenUseResolution old, however often the token is
// checked.
func TestTokenUseIsRecordedOnceAMinute(t *testing.T) {
	ctx := t.Context()
	store, err := sqlite.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "chronos.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &manualClock{now: start}
	node := admin.NewTokens(store, clock)
	plain, tok, err := node.Create(ctx, "alice", domain.ScopeOwner)
	if err != nil {
		t.Fatal(err)
	}
	lastUsed := func() time.Time {
		got, err := store.TokenByHash(ctx, tok.Hash)
		if err != nil {
			t.Fatal(err)
		}
		return got.LastUsedAt
	}
	use := func(want time.Time) {
		t.Helper()
		if _, err := node.Authenticate(ctx, plain); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for !lastUsed().Equal(want) {
			if time.Now().After(deadline) {
				t.Fatalf("at %s: last used %s, want %s", clock.Now().Sub(start), lastUsed(), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	use(start)
	// Past the cache, the store is read again, but the recorded use is fresh.
	clock.advance(domain.TokenUseResolution - time.Second)
	use(start)
	time.Sleep(50 * time.Millisecond) // a write started by mistake would land by now
	if got := lastUsed(); !got.Equal(start) {
		t.Fatalf("a use %s after the recorded one moved it to %s", domain.TokenUseResolution-time.Second, got)
	}
	clock.advance(time.Second + time.Millisecond)
	use(clock.Now())
}
