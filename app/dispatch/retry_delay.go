package dispatch

import (
	"math/rand/v2"
	"time"
)

// retryDelay is a doubling delay with jitter for retrying store calls, so nodes that
// lost their database together do not hammer it in step when it returns.
type retryDelay struct {
	base, cap, cur time.Duration
}

func newRetryDelay(base, cap time.Duration) *retryDelay {
	return &retryDelay{base: base, cap: cap}
}

func (r *retryDelay) next() time.Duration {
	if r.cur == 0 {
		r.cur = r.base
	} else {
		r.cur = min(r.cur*2, r.cap)
	}
	// Full jitter over the upper half: between cur/2 and cur.
	return r.cur/2 + rand.N(r.cur/2+1)
}

func (r *retryDelay) reset() { r.cur = 0 }
