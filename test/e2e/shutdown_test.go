package e2e

import (
	"context"
	"testing"
	"time"
)

// TestGracefulStopDeregistersTheWorker: SIGTERM drains and removes the node's worker
// row before the store closes, so operators never see a stopped node as a live one.
// (Regression: the heartbeat's deregister raced the store's close and lost.)
func TestGracefulStopDeregistersTheWorker(t *testing.T) {
	for _, kind := range serveStores(t) {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			store := newStoreURL(t, kind)
			recv := NewReceiver(t, e2eSecret)
			node := StartNode(t, "node", NodeConfig{Store: store, WakeURL: recv.URL, Secret: e2eSecret})
			in := OpenInspector(t, kind, store, "e2e")
			if w := waitWorkers(t, in, 1); w != 1 {
				t.Fatalf("%d workers registered while the node runs, want 1", w)
			}
			node.Stop()
			if w := waitWorkers(t, in, 0); w != 0 {
				t.Errorf("%d workers still registered after a graceful stop, want 0", w)
			}
		})
	}
}

// waitWorkers polls the worker table for up to 3s until it holds want rows.
func waitWorkers(t *testing.T, in *Inspector, want int) int {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ws, err := in.store.ListWorkers(ctx)
		cancel()
		if err != nil {
			t.Fatalf("listing workers: %v", err)
		}
		if len(ws) == want || time.Now().After(deadline) {
			return len(ws)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
