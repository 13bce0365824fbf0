package owners

import (
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// DefaultAuthFailuresPerMinute is `chronos serve`'s failed authentications per minute
// per client address on one node: far more than a person mistyping a token or a
// service deployed with a stale one, far fewer than someone trying tokens, each of
// which costs a store query.
const DefaultAuthFailuresPerMinute = 60

// maxAuthFailureAddrs bounds the addresses AuthFailureLimiter remembers at once (about
// 150 bytes each): past it, one it remembers is forgotten to make room.
const maxAuthFailureAddrs = 50_000

// AuthFailureLimiter paces, per client address on this node, the requests that fail
// to authenticate (a missing, unknown or revoked API token, a wrong sign-in, an
// unknown dashboard session): a token bucket per address of N failures that refills at
// N a minute. An address with no failure left is refused before its request is
// authenticated, so trying tokens costs the store nothing more. Failures past the
// bucket are still counted, as a debt of up to maxAuthFailureDebt minutes' worth that
// refills first: a flood of concurrent tries, which all pass while the bucket is not yet
// empty, buys its sender that much more waiting, so over time an address gets about N
// store queries a minute whatever its concurrency.
//
// Requests that authenticate neither take from a bucket nor wait for one: a client
// with a valid token is never slowed, unless it shares its address with one that keeps
// failing (behind a proxy, every client has the proxy's address).
//
// IPv6 addresses are counted by their /64, which one host commonly holds whole. Memory
// is bounded: a bucket full again is dropped, and at most maxAuthFailureAddrs are kept.
//
// A nil *AuthFailureLimiter allows everything.
type AuthFailureLimiter struct {
	perMinute int
	perSecond float64
	clock     ports.Clock
	metrics   ports.Metrics

	mu        sync.Mutex
	buckets   map[netip.Addr]*failureBucket
	lastSweep time.Time
}

// maxAuthFailureDebt is how many minutes of refill an address may owe.
const maxAuthFailureDebt = 10

// failureBucket is the failures an address has left as of at; below zero, its debt.
type failureBucket struct {
	left float64
	at   time.Time
}

// refill adds what the bucket earned since it was last looked at, up to burst.
func (b *failureBucket) refill(now time.Time, perSecond float64, burst int) {
	if d := now.Sub(b.at); d > 0 {
		b.left = min(float64(burst), b.left+d.Seconds()*perSecond)
		b.at = now
	}
}

// NewAuthFailureLimiter returns a limiter of perMinute failed authentications a minute
// per client address (in bursts of as many), or nil when perMinute <= 0 (no limit).
// clock nil: the process's monotonic clock; metrics nil: none.
func NewAuthFailureLimiter(perMinute int, clock ports.Clock, metrics ports.Metrics) *AuthFailureLimiter {
	if perMinute <= 0 {
		return nil
	}
	if clock == nil {
		clock = monotonicClock{}
	}
	if metrics == nil {
		metrics = ports.NopMetrics{}
	}
	return &AuthFailureLimiter{perMinute: perMinute, perSecond: float64(perMinute) / 60, clock: clock, metrics: metrics,
		buckets: map[netip.Addr]*failureBucket{}}
}

// Allow refuses, with a *domain.LimitError (domain.ErrRateLimited) saying when to try
// again, a request from remote (an http.Request's RemoteAddr, "host:port") whose
// address has no failure left. It takes nothing: only Failed does.
func (l *AuthFailureLimiter) Allow(remote string) error {
	if l == nil {
		return nil
	}
	key, now := addrKey(remote), l.clock.Now()
	l.mu.Lock()
	short := 0.0
	if b := l.buckets[key]; b != nil {
		b.refill(now, l.perSecond, l.perMinute)
		short = 1 - b.left
	}
	l.mu.Unlock()
	if short <= 0 {
		return nil
	}
	l.metrics.Refused(ports.RefusedRate)
	return &domain.LimitError{Kind: domain.ErrRateLimited, RetryAfter: time.Duration(short / l.perSecond * float64(time.Second)),
		Message: fmt.Sprintf("too many failed authentications from this address (%d a minute on this node); retry after Retry-After", l.perMinute)}
}

// Failed counts one failed authentication from remote.
func (l *AuthFailureLimiter) Failed(remote string) {
	if l == nil {
		return
	}
	key, now := addrKey(remote), l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= maxAuthFailureAddrs {
			for k := range l.buckets { // any one: map order is random
				delete(l.buckets, k)
				break
			}
		}
		b = &failureBucket{left: float64(l.perMinute), at: now}
		l.buckets[key] = b
	}
	b.refill(now, l.perSecond, l.perMinute)
	b.left = max(b.left-1, -float64(maxAuthFailureDebt*l.perMinute))
}

// sweep drops the buckets that are full again, at most once per the time an empty
// bucket takes to fill (a minute): dropping a full bucket changes no answer. Called
// with l.mu held.
func (l *AuthFailureLimiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute {
		return
	}
	l.lastSweep = now
	for key, b := range l.buckets {
		if b.refill(now, l.perSecond, l.perMinute); b.left >= float64(l.perMinute) {
			delete(l.buckets, key)
		}
	}
}

// addrKey is the bucket of remote: its address, an IPv6 one cut to its /64; the zero
// Addr for one that does not parse (a Unix socket's), which all such share.
func addrKey(remote string) netip.Addr {
	var addr netip.Addr
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		addr = ap.Addr()
	} else if a, err := netip.ParseAddr(remote); err == nil {
		addr = a
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is6() {
		if p, err := addr.Prefix(64); err == nil {
			return p.Addr()
		}
	}
	return addr
}

// size is how many addresses have a bucket now; tests check the memory bound with it.
func (l *AuthFailureLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
