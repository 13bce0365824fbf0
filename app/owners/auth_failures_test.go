package owners

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// fail counts n failures from remote, each after Allow let it through, as the API
// does; it returns how many Allow let through.
func fail(l *AuthFailureLimiter, remote string, n int) int {
	through := 0
	for range n {
		if l.Allow(remote) == nil {
			through++
			l.Failed(remote)
		}
	}
	return through
}

// An address gets its burst of failures, then one a second (60 a minute); each
// address has its own bucket, an IPv6 host its /64, and a refusal says when to retry.
func TestAuthFailuresPerAddress(t *testing.T) {
	clock := newTestClock()
	l := NewAuthFailureLimiter(60, clock, nil)
	if got := fail(l, "203.0.113.7:40000", 100); got != 60 {
		t.Fatalf("100 failures at once: %d let through, want the burst of 60", got)
	}
	err := l.Allow("203.0.113.7:40001") // another port, the same address
	var le *domain.LimitError
	if !errors.Is(err, domain.ErrRateLimited) || !errors.As(err, &le) || le.RetryAfter != time.Second {
		t.Fatalf("past the burst: %v, want rate_limited with RetryAfter 1s", err)
	}
	if got := fail(l, "[::ffff:203.0.113.7]:1", 1); got != 0 {
		t.Errorf("the same address as IPv4-mapped IPv6: %d let through, want 0", got)
	}
	if got := fail(l, "203.0.113.8:40000", 60); got != 60 {
		t.Errorf("another address: %d of 60 let through, want all", got)
	}
	fail(l, "[2001:db8:1:2::1]:443", 60)
	if got := fail(l, "[2001:db8:1:2:ffff::9]:443", 1); got != 0 {
		t.Errorf("another address of the same IPv6 /64: %d let through, want 0", got)
	}
	if got := fail(l, "[2001:db8:1:3::1]:443", 1); got != 1 {
		t.Errorf("another IPv6 /64: %d let through, want 1", got)
	}
	clock.advance(10 * time.Second)
	if got := fail(l, "203.0.113.7:40000", 20); got != 10 {
		t.Errorf("10 s later: %d let through, want 10 (one a second)", got)
	}
}

// Allow takes nothing: an address whose requests authenticate is never refused, however
// many it sends; and only failures count.
func TestAuthenticatedRequestsTakeNothing(t *testing.T) {
	l := NewAuthFailureLimiter(60, newTestClock(), nil)
	for i := range 100_000 {
		if err := l.Allow("198.51.100.1:5000"); err != nil {
			t.Fatalf("request %d of an address that never failed: %v", i, err)
		}
	}
	fail(l, "198.51.100.1:5000", 59)
	if err := l.Allow("198.51.100.1:5000"); err != nil {
		t.Errorf("after 59 failures of 60: %v, want allowed", err)
	}
}

// Failures past the bucket (concurrent tries that all passed Allow before any failed)
// are owed: the address waits for them, up to ten minutes' worth.
func TestAuthFailuresPastTheBucketAreOwed(t *testing.T) {
	clock := newTestClock()
	l := NewAuthFailureLimiter(60, clock, nil)
	for range 60 + 30 {
		l.Failed("192.0.2.1:1")
	}
	var le *domain.LimitError
	if err := l.Allow("192.0.2.1:1"); !errors.As(err, &le) || le.RetryAfter != 31*time.Second {
		t.Errorf("30 failures past the bucket: %v, want RetryAfter 31s", err)
	}
	for range 10_000 {
		l.Failed("192.0.2.2:1")
	}
	if err := l.Allow("192.0.2.2:1"); !errors.As(err, &le) || le.RetryAfter != 601*time.Second {
		t.Errorf("a flood: %v, want RetryAfter 601s (the debt is at most ten minutes' worth)", err)
	}
	clock.advance(601 * time.Second)
	if err := l.Allow("192.0.2.2:1"); err != nil {
		t.Errorf("once the debt is paid: %v, want allowed", err)
	}
}

// Memory is bounded: buckets full again are dropped, and no more than
// maxAuthFailureAddrs addresses are remembered however many fail.
func TestAuthFailureMemoryIsBounded(t *testing.T) {
	clock := newTestClock()
	l := NewAuthFailureLimiter(60, clock, nil)
	for i := range maxAuthFailureAddrs + 5000 {
		l.Failed(fmt.Sprintf("[2001:db8:%x:%x::1]:1", i>>16, i&0xffff))
	}
	if n := l.size(); n != maxAuthFailureAddrs {
		t.Errorf("%d addresses remembered, want at most %d", n, maxAuthFailureAddrs)
	}
	clock.advance(time.Minute) // every bucket is full again
	fail(l, "10.0.0.1:1", 60)
	if n := l.size(); n != 1 {
		t.Errorf("%d addresses remembered once the others are full again, want 1", n)
	}
	if err := l.Allow("10.0.0.1:1"); err == nil {
		t.Error("the address that failed since is not refused")
	}
}

// 0 turns the limit off: nil allows everything.
func TestNoAuthFailureLimit(t *testing.T) {
	l := NewAuthFailureLimiter(0, nil, nil)
	if l != nil {
		t.Fatal("NewAuthFailureLimiter(0) is not nil")
	}
	if got := fail(l, "192.0.2.1:1", 1000); got != 1000 {
		t.Errorf("no limit: %d of 1,000 let through", got)
	}
}
