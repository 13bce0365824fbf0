// Package chores holds a node's background work: the worker heartbeat, the cluster-wide
// pause gate, retention, the count sampler and the store's upkeep. Each is a loop of
// one pass per interval on every (the one ticking loop); none of them dispatches.
package chores

import (
	"context"
	"time"
)

// every runs pass every interval until ctx is done: the first at once when now is set,
// else after one interval. Each wait starts when a pass returns, so a pass that ran long
// is never followed by another at once.
func every(ctx context.Context, interval time.Duration, now bool, pass func(context.Context)) {
	if now {
		pass(ctx)
	}
	t := time.NewTimer(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pass(ctx)
		t.Reset(interval)
	}
}
