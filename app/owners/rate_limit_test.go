package owners

import (
	"errors"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

func allowed(l *RateLimiter, key string, n int) int {
	ok := 0
	for range n {
		if l.Allow(key) == nil {
			ok++
		}
	}
	return ok
}

// A token may burst to twice its rate, then gets its rate: the bucket refills at N a
// second. Each token has its own bucket.
func TestRateLimiterBurstsToTwiceTheRate(t *testing.T) {
	clock := newTestClock()
	l := NewRateLimiter(5, clock, nil)
	if got := allowed(l, "tok_a", 20); got != 10 {
		t.Fatalf("20 requests at once: %d allowed, want the burst of 10", got)
	}
	err := l.Allow("tok_a")
	var le *domain.LimitError
	if !errors.Is(err, domain.ErrRateLimited) || !errors.As(err, &le) || le.RetryAfter != 200*time.Millisecond {
		t.Fatalf("over the burst: %v, want rate_limited with RetryAfter 200ms (one request at 5/s)", err)
	}
	if got := allowed(l, "tok_b", 10); got != 10 {
		t.Errorf("another token: %d of 10 allowed, want all (its own bucket)", got)
	}
	clock.advance(time.Second)
	if got := allowed(l, "tok_a", 10); got != 5 {
		t.Errorf("a second later: %d allowed, want 5 (the rate)", got)
	}
	clock.advance(10 * time.Second)
	if got := allowed(l, "tok_a", 20); got != 10 {
		t.Errorf("after a long pause: %d allowed, want the burst of 10, no more", got)
	}
}

// Buckets of tokens gone quiet are dropped once full again, so memory follows the
// tokens in use; a dropped bucket answers as the kept one would have.
func TestRateLimiterDropsIdleBuckets(t *testing.T) {
	clock := newTestClock()
	l := NewRateLimiter(10, clock, nil)
	for _, k := range []string{"a", "b", "c"} {
		allowed(l, k, 20)
	}
	clock.advance(time.Second) // half full: kept
	allowed(l, "d", 1)
	if n := l.size(); n != 4 {
		t.Fatalf("%d buckets a second later, want 4", n)
	}
	clock.advance(time.Second) // a, b and c full again
	allowed(l, "d", 1)
	if n := l.size(); n != 1 {
		t.Errorf("%d buckets once the idle ones are full, want 1 (d)", n)
	}
	if got := allowed(l, "a", 25); got != 20 {
		t.Errorf("a dropped token comes back with %d allowed, want its full burst of 20", got)
	}
}

// 0 turns the limit off: nil allows everything.
func TestNoRateLimit(t *testing.T) {
	l := NewRateLimiter(0, nil, nil)
	if l != nil {
		t.Fatal("NewRateLimiter(0) is not nil")
	}
	if got := allowed(l, "a", 10000); got != 10000 {
		t.Errorf("no limit: %d of 10,000 allowed", got)
	}
}
