package sqlite

import (
	"context"
	"testing"
	"time"
)

// waitQueued waits until n writers wait for their turn.
func waitQueued(t *testing.T, w *writeTurns, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		w.mu.Lock()
		got := len(w.claims) + len(w.others)
		w.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writers queued, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// queueWriter returns start: start(name, claim, queued) runs a writer that waits for its
// turn, sends its name on order once it has it and releases it; start returns once
// queued writers wait.
func queueWriter(t *testing.T, w *writeTurns, order chan<- string) func(name string, claim bool, queued int) {
	return func(name string, claim bool, queued int) {
		go func() {
			if err := w.acquire(context.Background(), claim); err != nil {
				t.Error(err)
				return
			}
			order <- name
			w.release()
		}()
		waitQueued(t, w, queued)
	}
}

// A claim that comes after other writers gets the writer before them; the others keep
// their order.
func TestWriteTurnsClaimsFirst(t *testing.T) {
	w := writeTurns{maxWait: time.Hour} // however slow the machine, nobody has waited too long
	if err := w.acquire(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 3)
	start := queueWriter(t, &w, order)
	start("apply 1", false, 1)
	start("apply 2", false, 2)
	start("claim", true, 3)
	w.release()
	for _, want := range []string{"claim", "apply 1", "apply 2"} {
		if got := <-order; got != want {
			t.Fatalf("turn went to %s, want %s", got, want)
		}
	}
	if err := w.acquire(context.Background(), false); err != nil {
		t.Fatalf("the writer is free again but: %v", err)
	}
}

// A writer whose context ends while it waits gives up without holding the writer, and
// the writers behind it still get their turn.
func TestWriteTurnsGiveUpOnContext(t *testing.T) {
	var w writeTurns
	if err := w.acquire(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() { gaveUp <- w.acquire(ctx, true) }()
	waitQueued(t, &w, 1)
	got := make(chan struct{})
	go func() {
		if err := w.acquire(context.Background(), false); err == nil {
			close(got)
		}
	}()
	waitQueued(t, &w, 2)
	cancel()
	if err := <-gaveUp; err == nil {
		t.Fatal("a cancelled wait returned no error")
	}
	w.release()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the writer behind a cancelled wait never got its turn")
	}
}

// A writer that has waited othersMaxWait goes before a waiting claim: claims go first
// only while the others have not waited long.
func TestWriteTurnsOthersWaitBoundedly(t *testing.T) {
	var w writeTurns
	if err := w.acquire(context.Background(), true); err != nil { // a claim holds it
		t.Fatal(err)
	}
	order := make(chan string, 4)
	start := queueWriter(t, &w, order)
	start("create", false, 1)
	start("claim 2", true, 2)
	time.Sleep(othersMaxWait + 10*time.Millisecond) // the create has now waited too long
	start("claim 3", true, 3)
	w.release()
	for _, want := range []string{"create", "claim 2", "claim 3"} {
		if got := <-order; got != want {
			t.Fatalf("turn went to %s, want %s", got, want)
		}
	}
}
