package bench

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/ports"
)

// A bench node keeps its worker row as a serve node does: registered while it runs
// (with the version it was given), removed when it stops.
func TestNodeRunsTheWorkerHeartbeat(t *testing.T) {
	url := "sqlite://" + filepath.Join(t.TempDir(), "bench.db")
	s, err := sqlite.Open(t.Context(), url, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	open := func(ctx context.Context, url string, migrate bool) (ports.Store, error) {
		return sqlite.Open(ctx, url, sqlite.Options{Migrate: migrate})
	}
	n, err := newDispatcherNode(t.Context(), nodeConfig{Store: url, Waker: "noop", Batch: 10, Concurrency: 10, Tick: time.Second},
		Wiring{Open: open, Version: "v-bench-test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.start(time.Time{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		ws, err := s.ListWorkers(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) == 1 && ws[0].Version == "v-bench-test" {
			break
		}
		if time.Now().After(deadline) {
			_, _ = n.stop()
			t.Fatalf("no worker row for the running node: %+v", ws)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := n.stop(); err != nil {
		t.Fatal(err)
	}
	if ws, err := s.ListWorkers(t.Context()); err != nil || len(ws) != 0 {
		t.Errorf("after stop: workers %+v, %v; want none", ws, err)
	}
}

// A node that never started stops without waiting for loops that never ran.
func TestNodeStopsUnstarted(t *testing.T) {
	url := "sqlite://" + filepath.Join(t.TempDir(), "bench.db")
	open := func(ctx context.Context, url string, migrate bool) (ports.Store, error) {
		return sqlite.Open(ctx, url, sqlite.Options{Migrate: true})
	}
	n, err := newDispatcherNode(t.Context(), nodeConfig{Store: url, Waker: "noop", Batch: 10, Concurrency: 10, Tick: time.Second},
		Wiring{Open: open, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.stop(); err != nil {
		t.Fatal(err)
	}
}
