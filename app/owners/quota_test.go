package owners

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// testClock is a clock the test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock { return &testClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *testClock) advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

// countingStore answers CountActive with what the test set per owner (what the
// database holds, other nodes' creates and cancels included), counting the calls; gate,
// when set, holds each call until it is closed.
type countingStore struct {
	mu     sync.Mutex
	active map[string]int
	calls  atomic.Int64
	err    error
	gate   chan struct{}
	// takes, with clock, is how long each count takes on the test's clock.
	clock *testClock
	takes time.Duration
}

func (s *countingStore) set(owner string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active[owner] = n
}

func (s *countingStore) CountActive(ctx context.Context, owner string, atMost int) (int, error) {
	s.calls.Add(1)
	s.mu.Lock()
	gate, err, n := s.gate, s.err, s.active[owner]
	s.mu.Unlock()
	if gate != nil {
		<-gate
	}
	if s.clock != nil {
		s.clock.advance(s.takes)
	}
	if err != nil {
		return 0, err
	}
	return min(n, atMost), nil
}

const testRefresh = 2 * time.Second

func newTestQuota(t *testing.T, limit int) (*Quota, *countingStore, *testClock) {
	t.Helper()
	store := &countingStore{active: map[string]int{}}
	clock := newTestClock()
	return NewQuota(store, QuotaConfig{MaxActivePerOwner: limit, Refresh: testRefresh, Clock: clock}), store, clock
}

// admit admits n for owner and ends the reservation with created.
func admit(t *testing.T, q *Quota, owner string, n, created int) error {
	t.Helper()
	r, err := q.Admit(t.Context(), owner, n)
	if err == nil {
		r.Done(created)
	}
	return err
}

func wantQuotaRefusal(t *testing.T, what string, err error, retry time.Duration) {
	t.Helper()
	var le *domain.LimitError
	if !errors.Is(err, domain.ErrQuotaExceeded) || !errors.As(err, &le) {
		t.Fatalf("%s: %v, want a quota refusal", what, err)
	}
	if le.RetryAfter != retry {
		t.Errorf("%s: RetryAfter %s, want %s", what, le.RetryAfter, retry)
	}
}

// waitCounted waits until no count of owner runs (the background counts are
// goroutines).
func waitCounted(t *testing.T, q *Quota, owner string) {
	t.Helper()
	for range 1000 {
		q.mu.Lock()
		running := q.owners[owner] != nil && q.owners[owner].refreshing != nil
		q.mu.Unlock()
		if !running {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the count never ended")
}

// The store counts an owner once per refresh interval, not once per create: a thousand
// creates within one interval cost one count, and the next interval's first create one
// more, in the background.
func TestQuotaCountsOncePerRefresh(t *testing.T) {
	q, store, clock := newTestQuota(t, 1_000_000)
	for range 1000 {
		if err := admit(t, q, "alice", 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	if n := store.calls.Load(); n != 1 {
		t.Fatalf("%d counts for 1,000 creates within one refresh interval, want 1", n)
	}
	clock.advance(testRefresh)
	for range 1000 {
		if err := admit(t, q, "alice", 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	waitCounted(t, q, "alice")
	if n := store.calls.Load(); n != 2 {
		t.Errorf("%d counts after a second interval's creates, want 2", n)
	}
	if err := admit(t, q, "bob", 1, 1); err != nil || store.calls.Load() != 3 {
		t.Errorf("another owner: %v after %d counts, want admitted after its own first count", err, store.calls.Load())
	}
}

// On one node the owner never goes over: the store's count plus this node's creates,
// in flight or done, are held against the quota; a refusal says when a new count may
// show room.
func TestQuotaRefusesWhatWouldCrossIt(t *testing.T) {
	q, store, clock := newTestQuota(t, 5)
	store.set("alice", 2)
	if err := admit(t, q, "alice", 2, 2); err != nil {
		t.Fatalf("2 more of 5 with 2 stored: %v", err)
	}
	r, err := q.Admit(t.Context(), "alice", 1) // in flight: not yet answered
	if err != nil {
		t.Fatal(err)
	}
	clock.advance(500 * time.Millisecond)
	wantQuotaRefusal(t, "a sixth while the fifth is in flight", admit(t, q, "alice", 1, 1), 1500*time.Millisecond)
	r.Done(0) // the fifth was deduped: it takes no room
	if err := admit(t, q, "alice", 1, 1); err != nil {
		t.Fatalf("the fifth again after a deduped one: %v", err)
	}
	wantQuotaRefusal(t, "a sixth", admit(t, q, "alice", 1, 1), 1500*time.Millisecond)
	clock.advance(1200 * time.Millisecond)
	wantQuotaRefusal(t, "a sixth, 300ms before the next count", admit(t, q, "alice", 1, 1), time.Second)
	if n := store.calls.Load(); n != 1 {
		t.Errorf("%d counts, want 1: a refusal on a fresh count asks nothing", n)
	}
	if err := admit(t, q, "bob", 5, 5); err != nil {
		t.Errorf("bob's quota is his own: %v", err)
	}
}

// A batch that would cross the quota is refused whole: none of it takes room.
func TestQuotaRefusesAWholeBatch(t *testing.T) {
	q, store, _ := newTestQuota(t, 10)
	store.set("alice", 7)
	wantQuotaRefusal(t, "4 with 7 of 10", admit(t, q, "alice", 4, 4), testRefresh)
	if err := admit(t, q, "alice", 3, 3); err != nil {
		t.Errorf("3 with 7 of 10 after a refused batch of 4: %v (the refused batch took room)", err)
	}
	if err := admit(t, q, "bob", 11, 11); !errors.Is(err, domain.ErrQuotaExceeded) {
		t.Errorf("a batch larger than the quota: %v, want refused", err)
	}
}

// A batch larger than the whole quota can never fit: it is refused at once, as
// Permanent (no Retry-After), without waiting for a count, fresh or stale, that could
// not change the answer.
func TestQuotaRefusesABatchLargerThanItAtOnce(t *testing.T) {
	q, store, clock := newTestQuota(t, 10)
	hold := func() { // counts wait until release: a refusal that waits for one fails
		store.mu.Lock()
		defer store.mu.Unlock()
		store.gate = make(chan struct{})
	}
	release := func() {
		store.mu.Lock()
		defer store.mu.Unlock()
		close(store.gate)
		store.gate = nil
	}
	wantPermanent := func(what string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		_, err := q.Admit(ctx, "alice", 11)
		var le *domain.LimitError
		if !errors.As(err, &le) || !errors.Is(err, domain.ErrQuotaExceeded) || !le.Permanent || le.RetryAfter != 0 {
			t.Fatalf("%s: %v, want a Permanent quota refusal without RetryAfter", what, err)
		}
	}
	hold()
	wantPermanent("11 of 10 for an owner never counted")
	release()
	if err := admit(t, q, "alice", 1, 1); err != nil {
		t.Fatal(err)
	}
	clock.advance(testRefresh) // the count is stale: a refusal on it would wait for a new one
	hold()
	defer release()
	wantPermanent("11 of 10 on a stale count")
	if n := store.calls.Load(); n != 1 {
		t.Errorf("%d counts, want 1 (the first create's): a batch that can never fit asks nothing", n)
	}
}

// Room freed elsewhere (a cancel, a fire, another node's delete) shows within one
// refresh interval: a refusal on an older count waits for a new count first.
func TestQuotaSeesFreedRoomWithinARefresh(t *testing.T) {
	q, store, clock := newTestQuota(t, 3)
	store.set("alice", 3)
	wantQuotaRefusal(t, "at the quota", admit(t, q, "alice", 1, 1), testRefresh)
	store.set("alice", 1) // two cancelled, on any node
	clock.advance(testRefresh - time.Millisecond)
	wantQuotaRefusal(t, "within the interval", admit(t, q, "alice", 1, 1), time.Second)
	clock.advance(time.Millisecond)
	if err := admit(t, q, "alice", 2, 2); err != nil {
		t.Fatalf("after the interval, with two freed: %v", err)
	}
	if n := store.calls.Load(); n != 2 {
		t.Errorf("%d counts, want 2", n)
	}
	wantQuotaRefusal(t, "a fourth", admit(t, q, "alice", 1, 1), testRefresh)
}

// A count that has aged is renewed in the background: the create that finds it does not
// wait for the store. What other nodes created meanwhile shows once it lands; this
// node's creates during the count stay counted.
func TestQuotaRenewsInTheBackground(t *testing.T) {
	q, store, clock := newTestQuota(t, 100)
	if err := admit(t, q, "alice", 10, 10); err != nil {
		t.Fatal(err)
	}
	clock.advance(testRefresh)
	store.set("alice", 60) // this node's 10 and another node's 50
	gate := make(chan struct{})
	store.mu.Lock()
	store.gate = gate
	store.mu.Unlock()
	// Admitted at once, on the old count, while the new one waits at the gate.
	if err := admit(t, q, "alice", 5, 5); err != nil {
		t.Fatal(err)
	}
	close(gate)
	waitCounted(t, q, "alice")
	// The count (60) did not see the 5 created during it: 65 held, 35 left.
	if err := admit(t, q, "alice", 35, 35); err != nil {
		t.Fatalf("35 more with 65 held of 100: %v", err)
	}
	wantQuotaRefusal(t, "one more", admit(t, q, "alice", 1, 1), testRefresh)
}

// A slow count (an owner near a large quota, a slow database) is renewed no sooner than
// 20 times its duration, so counting one owner takes at most a twentieth of the
// database's time per node; refusals say so in their RetryAfter.
func TestQuotaSlowCountsAreRenewedLessOften(t *testing.T) {
	q, store, clock := newTestQuota(t, 10)
	store.clock, store.takes = clock, 500*time.Millisecond // 20 × 500ms = 10s
	store.set("alice", 10)
	wantQuotaRefusal(t, "at the quota", admit(t, q, "alice", 1, 1), 9500*time.Millisecond)
	store.set("alice", 0)
	clock.advance(testRefresh)
	wantQuotaRefusal(t, "a refresh later", admit(t, q, "alice", 1, 1), 7500*time.Millisecond)
	if n := store.calls.Load(); n != 1 {
		t.Fatalf("%d counts, want 1: a count of 500ms is not renewed after 2s", n)
	}
	clock.advance(7500 * time.Millisecond)
	if err := admit(t, q, "alice", 10, 10); err != nil || store.calls.Load() != 2 {
		t.Errorf("20 counts' time later: %v after %d counts, want admitted on a second count", err, store.calls.Load())
	}
}

// Two nodes over one store: each sees the other's creates only through its counts, so
// the owner can end over its quota by what the other node created since this one's
// count, and by no more; once the counts catch up, both refuse.
func TestQuotaOnTwoNodesOvershootsByOneRefresh(t *testing.T) {
	store := &countingStore{active: map[string]int{}}
	clock := newTestClock()
	cfg := QuotaConfig{MaxActivePerOwner: 10, Refresh: testRefresh, Clock: clock}
	a, b := NewQuota(store, cfg), NewQuota(store, cfg)
	create := func(q *Quota) error { // admit one and commit it to the shared store
		r, err := q.Admit(t.Context(), "alice", 1)
		if err != nil {
			return err
		}
		store.mu.Lock()
		store.active["alice"]++
		store.mu.Unlock()
		r.Done(1)
		return nil
	}
	createdBy := func(q *Quota, n int) int {
		ok := 0
		for range n {
			if create(q) == nil {
				ok++
			}
		}
		return ok
	}
	if got := createdBy(a, 6); got != 6 { // a counts 0 first
		t.Fatalf("node a: %d of 6 created", got)
	}
	if got := createdBy(b, 6); got != 4 { // b counts a's 6 first
		t.Fatalf("node b: %d of 6 created, want 4", got)
	}
	// a has not counted since b's 4: it still has room for 4 in its eyes.
	if got := createdBy(a, 6); got != 4 {
		t.Fatalf("node a again: %d of 6 created, want 4", got)
	}
	if total := store.active["alice"]; total != 14 {
		t.Fatalf("%d stored, want 14: over by b's 4 created since a's count", total)
	}
	clock.advance(testRefresh)
	if got := createdBy(a, 1) + createdBy(b, 1); got != 0 {
		t.Errorf("after a refresh: %d created, want none (both count 14)", got)
	}
}

// On one node, however many creates race, exactly the quota's worth is admitted.
func TestQuotaHoldsUnderConcurrency(t *testing.T) {
	q, _, _ := newTestQuota(t, 500)
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 100 {
				r, err := q.Admit(context.Background(), "alice", 1)
				if err == nil {
					admitted.Add(1)
					r.Done(1)
				}
			}
		})
	}
	wg.Wait()
	if n := admitted.Load(); n != 500 {
		t.Errorf("%d of 1,600 racing creates admitted, want exactly 500", n)
	}
}

// A count that fails fails the create that needed it, and reserves nothing; the next
// create counts again.
func TestQuotaCountErrors(t *testing.T) {
	q, store, _ := newTestQuota(t, 5)
	boom := errors.New("store down")
	store.err = boom
	if err := admit(t, q, "alice", 1, 1); !errors.Is(err, boom) {
		t.Fatalf("Admit with the store down: %v, want its error", err)
	}
	store.mu.Lock()
	store.err = nil
	store.mu.Unlock()
	if err := admit(t, q, "alice", 5, 5); err != nil {
		t.Errorf("Admit of the whole quota once the store is back: %v", err)
	}
}

// Owners that stopped creating are forgotten, so the memory held follows the owners
// creating now; one with a create in flight is kept.
func TestQuotaForgetsIdleOwners(t *testing.T) {
	q, _, clock := newTestQuota(t, 5)
	for _, o := range []string{"a", "b", "c"} {
		if err := admit(t, q, o, 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	inFlight, err := q.Admit(t.Context(), "d", 1)
	if err != nil {
		t.Fatal(err)
	}
	clock.advance(quotaIdle)
	if err := admit(t, q, "e", 1, 1); err != nil {
		t.Fatal(err)
	}
	q.mu.Lock()
	kept := len(q.owners)
	q.mu.Unlock()
	if kept != 2 {
		t.Errorf("%d owners kept after a minute, want 2 (d, in flight, and e)", kept)
	}
	inFlight.Done(1)
}

// No quota: nil admits everything and asks nothing.
func TestNoQuota(t *testing.T) {
	store := &countingStore{active: map[string]int{}}
	q := NewQuota(store, QuotaConfig{})
	if q != nil {
		t.Fatal("NewQuota without a maximum is not nil")
	}
	if err := admit(t, q, "alice", 1_000_000, 1_000_000); err != nil || store.calls.Load() != 0 {
		t.Errorf("nil quota: %v after %d counts, want admitted without one", err, store.calls.Load())
	}
}
