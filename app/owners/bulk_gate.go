package owners

import (
	"fmt"
	"sync"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// DefaultBulkPerCall is the most alarms one owner's bulk call (an action or its dry
// run) goes through: about half a second of cancels on one node, well inside any
// request timeout. The answer's cursor goes on from there.
const DefaultBulkPerCall = 1000

// DefaultBulkCalls is how many owners' bulk calls (actions, dry runs, redeliveries) one
// node runs at once.
const DefaultBulkCalls = 4

// bulkBusyRetry is the Retry-After of a bulk call refused for want of room: calls are
// short (DefaultBulkPerCall), so room comes back soon.
const bulkBusyRetry = time.Second

// BulkGate bounds the owners' bulk calls one node runs at once, so that they leave the
// store's connections to creates and the dispatcher: at most calls in all (one more
// is refused, domain.ErrNodeBusy), and one dry run per owner (a second meanwhile is
// refused, domain.ErrRateLimited). An owner's actions and redeliveries already run one
// at a time across the cluster (its bulk lease). A nil *BulkGate admits every call.
type BulkGate struct {
	slots chan struct{}

	mu      sync.Mutex
	dryRuns map[string]bool // owners with a dry run on this node
}

// NewBulkGate returns a gate of calls calls at once; 0 or less: nil, no bound.
func NewBulkGate(calls int) *BulkGate {
	if calls <= 0 {
		return nil
	}
	return &BulkGate{slots: make(chan struct{}, calls), dryRuns: map[string]bool{}}
}

// enter admits a bulk call of owner, or refuses it without waiting: a client retries
// after Retry-After rather than holding a connection in a queue. leave ends it.
func (g *BulkGate) enter(owner string, dryRun bool) (leave func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	if dryRun {
		g.mu.Lock()
		running := g.dryRuns[owner]
		g.dryRuns[owner] = true
		g.mu.Unlock()
		if running {
			return nil, &domain.LimitError{Kind: domain.ErrRateLimited, RetryAfter: bulkBusyRetry,
				Message: "a dry run of this owner's bulk action is running on this node; retry when it has ended"}
		}
	}
	select {
	case g.slots <- struct{}{}:
	default:
		g.forget(owner, dryRun)
		return nil, &domain.LimitError{Kind: domain.ErrNodeBusy, RetryAfter: bulkBusyRetry,
			Message: fmt.Sprintf("this node runs %d bulk calls already, the most it takes at once; retry shortly", cap(g.slots))}
	}
	return func() { <-g.slots; g.forget(owner, dryRun) }, nil
}

func (g *BulkGate) forget(owner string, dryRun bool) {
	if dryRun {
		g.mu.Lock()
		delete(g.dryRuns, owner)
		g.mu.Unlock()
	}
}
