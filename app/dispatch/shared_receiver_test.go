package dispatch

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeNow is a clock a test moves by hand.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeNow) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeNow) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newTestShared(limit int, maxWait time.Duration) (*sharedReceiver, *fakeNow) {
	clock := &fakeNow{t: time.Unix(1_800_000_000, 0)}
	s := newSharedReceiver(limit, maxWait)
	s.now = clock.now
	return s, clock
}

// mustPass acquires a place for owner and fails the test if it had to wait.
func mustPass(t *testing.T, s *sharedReceiver, owner string) {
	t.Helper()
	waited, ok := s.acquire(t.Context(), owner)
	if !ok || waited != 0 {
		t.Fatalf("%s: acquire = %v, %v; want at once", owner, waited, ok)
	}
}

// waitFor starts an acquire for owner and returns a channel that receives its result.
func waitFor(ctx context.Context, s *sharedReceiver, owner string) <-chan bool {
	done := make(chan bool, 1)
	go func() {
		_, ok := s.acquire(ctx, owner)
		done <- ok
	}()
	return done
}

func waitQueued(t *testing.T, s *sharedReceiver, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.queuedWakes() != n {
		if time.Now().After(deadline) {
			t.Fatalf("queued wakes = %d, want %d", s.queuedWakes(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestSharedReceiverOneOwnerIsNeverLimited(t *testing.T) {
	s, _ := newTestShared(4, time.Minute)
	for range 40 {
		mustPass(t, s, "burst")
	}
}

func TestSharedReceiverQuietOwnerPassesABurstThatWaits(t *testing.T) {
	s, _ := newTestShared(4, time.Minute)
	for range 10 { // alone: over the limit at once
		mustPass(t, s, "burst")
	}
	// A second owner: its first wake is below its share (4 / 2 owners) and goes at once,
	// though 10 are in flight.
	mustPass(t, s, "quiet")
	// The burst's next wake waits: the receiver is shared and over its limit.
	burst := waitFor(t.Context(), s, "burst")
	waitQueued(t, s, 1)
	// It gets a place only once fewer than the limit are in flight (11 → 3).
	for range 7 {
		s.release("burst")
	}
	select {
	case <-burst:
		t.Fatal("the burst's wake went with 4 in flight, the limit")
	case <-time.After(20 * time.Millisecond):
	}
	s.release("burst")
	if ok := <-burst; !ok {
		t.Fatal("the burst's wake did not get the place freed for it")
	}
}

func TestSharedReceiverGrantsWaitingOwnersInTurn(t *testing.T) {
	s, _ := newTestShared(2, time.Minute)
	mustPass(t, s, "a")
	mustPass(t, s, "b")
	// Both owners are at their share (2 / 2 owners = 1) and the limit is reached: three
	// of a's wait, then one of b's.
	var order []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	queued := 0
	queue := func(owner string, n int) {
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, ok := s.acquire(t.Context(), owner); ok {
					mu.Lock()
					order = append(order, owner)
					mu.Unlock()
				}
			}()
			queued++
			waitQueued(t, s, queued)
		}
	}
	queue("a", 3)
	queue("b", 1)
	for range 4 {
		s.release("a") // one place at a time
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			n := len(order)
			mu.Unlock()
			if n > 0 && s.queuedWakes() == 4-n || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	wg.Wait()
	// b's single wake goes second, not after all of a's.
	if len(order) != 4 || order[0] != "a" || order[1] != "b" {
		t.Fatalf("grant order %v, want a, b, a, a", order)
	}
}

func TestSharedReceiverWaitEndsAfterMaxWait(t *testing.T) {
	s, _ := newTestShared(1, 30*time.Millisecond)
	mustPass(t, s, "a")
	mustPass(t, s, "b")
	if _, ok := s.acquire(t.Context(), "a"); ok {
		t.Fatal("a wake got a place the receiver did not have")
	}
	if n := s.queuedWakes(); n != 0 {
		t.Fatalf("a wake that gave up still counts as queued: %d", n)
	}
	// The places it did not get are not lost: with both released, both owners pass again.
	s.release("a")
	s.release("b")
	mustPass(t, s, "a")
}

func TestSharedReceiverOwnerLeavesAfterTheWindow(t *testing.T) {
	s, clock := newTestShared(1, time.Minute)
	mustPass(t, s, "quiet")
	s.release("quiet")
	mustPass(t, s, "burst")
	waiting := waitFor(t.Context(), s, "burst")
	waitQueued(t, s, 1)
	// The quiet owner woke nothing for longer than the window: the burst has the
	// receiver to itself again, and its waiting wake goes as soon as anything settles.
	clock.add(activeWindow + time.Second)
	s.release("burst")
	if ok := <-waiting; !ok {
		t.Fatal("the waiting wake was not released once its owner was alone")
	}
	for range 5 {
		mustPass(t, s, "burst")
	}
}
