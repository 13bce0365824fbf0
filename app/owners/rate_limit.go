package owners

import (
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// DefaultRateLimit is `chronos serve`'s requests per second per token on one node.
// Generous on purpose: a thousand requests a second, in bursts of two thousand, is far
// beyond a person, the dashboard or a service creating alarms in batches (1,000 alarms a
// request); it stops one runaway client from taking a node's every request slot. A
// benchmark of one node's ceiling with one token turns it off (--rate-limit 0).
const DefaultRateLimit = 1000

// RateLimiter paces each API token's requests on this node: a token bucket per token
// (golang.org/x/time/rate) refilled at N a second and holding at most 2N, so a client
// may burst to 2N and then keeps N a second. Per node: k nodes behind a balancer let a
// token make up to k·N. Memory is bounded by the tokens seen in the last few seconds: a
// bucket idle long enough to be full again is the same as a new one, and is dropped.
//
// A nil *RateLimiter allows everything.
type RateLimiter struct {
	limit   rate.Limit
	burst   int
	clock   ports.Clock
	metrics ports.Metrics

	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
	lastSweep time.Time
}

// NewRateLimiter returns a limiter of perSecond requests a second per key (bursts of
// twice that), or nil when perSecond <= 0 (no limit). clock nil: the process's monotonic
// clock; metrics nil: none.
func NewRateLimiter(perSecond int, clock ports.Clock, metrics ports.Metrics) *RateLimiter {
	if perSecond <= 0 {
		return nil
	}
	if clock == nil {
		clock = monotonicClock{}
	}
	if metrics == nil {
		metrics = ports.NopMetrics{}
	}
	return &RateLimiter{limit: rate.Limit(perSecond), burst: 2 * perSecond, clock: clock, metrics: metrics,
		buckets: map[string]*rate.Limiter{}}
}

// Allow takes one request from key's bucket (the API passes the token's id), or refuses
// with a *domain.LimitError (domain.ErrRateLimited) whose RetryAfter is when the bucket
// will hold a request again.
func (l *RateLimiter) Allow(key string) error {
	if l == nil {
		return nil
	}
	now := l.clock.Now()
	l.mu.Lock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		b = rate.NewLimiter(l.limit, l.burst)
		l.buckets[key] = b
	}
	// Under l.mu, so a sweep never drops a bucket between a look-up and its use.
	ok := b.AllowN(now, 1)
	var short float64
	if !ok {
		short = 1 - b.TokensAt(now)
	}
	l.mu.Unlock()
	if ok {
		return nil
	}
	l.metrics.Refused(ports.RefusedRate)
	wait := time.Duration(short / float64(l.limit) * float64(time.Second))
	return &domain.LimitError{Kind: domain.ErrRateLimited, RetryAfter: wait,
		Message: fmt.Sprintf("this token is over its request rate on this node (%d a second, in bursts of %d); retry after Retry-After", int(l.limit), l.burst)}
}

// sweep drops the buckets that are full again, at most once per the time an empty
// bucket takes to fill (2 s): dropping a full bucket changes no answer. Called with l.mu
// held.
func (l *RateLimiter) sweep(now time.Time) {
	fill := time.Duration(float64(l.burst) / float64(l.limit) * float64(time.Second))
	if now.Sub(l.lastSweep) < fill {
		return
	}
	l.lastSweep = now
	for key, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.burst) {
			delete(l.buckets, key)
		}
	}
}

// size is how many keys have a bucket now; tests check the memory bound with it.
func (l *RateLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
