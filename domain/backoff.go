package domain

import "time"

// Backoff is the retry ladder: Base doubled per earlier failure, never above Cap.
type Backoff struct {
	Base time.Duration // 30s by default
	Cap  time.Duration // 15m by default
}

// DefaultBackoff is the ladder of DESIGN: 30s, 1m, 2m, 4m, 8m, then 15m.
var DefaultBackoff = Backoff{Base: 30 * time.Second, Cap: 15 * time.Minute}

// Delay is the wait before the retry that follows a failure, given how many failures
// came before it (0 for the first retry).
func (b Backoff) Delay(failures int) time.Duration {
	d := b.Base
	if d <= 0 {
		d = DefaultBackoff.Base
	}
	limit := b.Cap
	if limit <= 0 {
		limit = DefaultBackoff.Cap
	}
	for i := 0; i < failures && d < limit; i++ {
		// Doubling past half the cap would reach it anyway, and with a cap near the
		// largest Duration it would overflow to a negative wait.
		if d > limit/2 {
			return limit
		}
		d *= 2
	}
	return min(d, limit)
}
