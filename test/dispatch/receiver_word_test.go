package dispatch_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// A receiver's Retry-After moves the retry to that time; its 410 Gone ends the
// occurrence without burning the retries left.
func TestTheReceiversWord(t *testing.T) {
	e := newEnv(t)
	var gone, busy string
	r := newReceiver(t, func(n int64, w wake) int {
		switch {
		case w.AlarmID == gone:
			return http.StatusGone
		case w.AlarmID == busy && w.Attempt == 1:
			return retryAfterStatus
		}
		return http.StatusOK
	})
	cfg := testConfig("w1")
	cfg.Policy.Backoff = domain.Backoff{Base: 50 * time.Millisecond, Cap: 5 * time.Second}
	e.start(t, e.waker(t, r), cfg)

	gone = e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0)), MaxFailures: 5}).ID
	busy = e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0)), MaxFailures: 5}).ID
	eventually(t, 5*time.Second, "both settled", func() bool {
		return e.get(t, gone).Status == domain.StatusFailed && e.get(t, busy).Status == domain.StatusFired
	})
	if g := e.get(t, gone); g.FailureCount != 1 || !strings.Contains(g.LastError, "410 Gone: not retried") {
		t.Errorf("the gone alarm: %d failures, last error %q; want failed after its one attempt", g.FailureCount, g.LastError)
	}
	var first, second time.Time
	for _, w := range r.received() {
		if w.AlarmID == busy {
			if w.Attempt == 1 {
				first = w.At
			} else {
				second = w.At
			}
		}
	}
	if gap := second.Sub(first); gap < 900*time.Millisecond || gap > 3*time.Second {
		t.Errorf("the retry came %s after the 503 with Retry-After: 1; the backoff alone would be 50ms", gap)
	}
}
