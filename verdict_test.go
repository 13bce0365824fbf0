package chronos_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/domain"
)

// A handler can say what a webhook receiver says with Retry-After and 410 Gone.
func TestHandlerVerdicts(t *testing.T) {
	var mu sync.Mutex
	attempts := map[string][]time.Time{}
	n, _ := start(t, func(ctx context.Context, w domain.Wake) error {
		mu.Lock()
		attempts[w.AlarmID] = append(attempts[w.AlarmID], time.Now())
		first, gone := len(attempts[w.AlarmID]) == 1, w.Label == "gone"
		mu.Unlock()
		switch {
		case gone:
			return chronos.Gone(nil)
		case first:
			return chronos.RetryAfter(nil, 500*time.Millisecond)
		}
		return nil
	}, chronos.Config{Backoff: domain.Backoff{Base: 10 * time.Millisecond, Cap: 5 * time.Second}})
	later := createDue(t, n, 5)
	waitFor(t, "the retried alarm delivered", func() bool { return get(t, n, later.ID).Status == domain.StatusFired })
	mu.Lock()
	gap := attempts[later.ID][1].Sub(attempts[later.ID][0])
	mu.Unlock()
	if gap < 400*time.Millisecond {
		t.Errorf("the retry came %s after RetryAfter(500ms); the backoff alone is 10ms", gap)
	}

	zero := time.Duration(0)
	a, _, err := n.Alarms().Create(t.Context(), domain.Spec{Owner: "o", Kind: domain.KindOnce, Delay: &zero, MaxFailures: 5, Label: "gone"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the gone alarm failed", func() bool { return get(t, n, a.ID).Status == domain.StatusFailed })
	if got := get(t, n, a.ID); got.FailureCount != 1 || !strings.Contains(got.LastError, "not retried") {
		t.Errorf("gone: %d failures, %q", got.FailureCount, got.LastError)
	}
}
