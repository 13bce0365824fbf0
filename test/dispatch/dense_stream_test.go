package dispatch_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// loopCalls is the real store recording, in order, the dispatcher loop's claims (what
// each returned, how long it took) and its reads of the next due time.
type loopCalls struct {
	dispatch.Store
	mu    sync.Mutex
	calls []loopCall
}

type loopCall struct {
	nextDue bool          // a NextDue read; otherwise a claim
	asked   int           // the claim's batch
	due     []time.Time   // the claimed alarms' due times
	took    time.Duration // the claim's duration, as the wrapper saw it
}

func (l *loopCalls) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	start := time.Now()
	c, err := l.Store.ClaimDue(ctx, p)
	call := loopCall{asked: p.Batch, took: time.Since(start)}
	for _, a := range c.Alarms {
		call.due = append(call.due, a.NextFireAt)
	}
	l.mu.Lock()
	l.calls = append(l.calls, call)
	l.mu.Unlock()
	return c, err
}

func (l *loopCalls) NextDue(ctx context.Context) (time.Time, bool, error) {
	l.mu.Lock()
	l.calls = append(l.calls, loopCall{nextDue: true})
	l.mu.Unlock()
	return l.Store.NextDue(ctx)
}

// dense is the loop's rule, on what the wrapper saw: the claim's alarms fell due on
// average less than its duration apart. The dispatcher's own duration includes the
// wrapper's, so a claim dense here is dense to the dispatcher too.
func (c loopCall) dense() bool {
	if len(c.due) < 2 {
		return false
	}
	oldest, newest := c.due[0], c.due[0]
	for _, at := range c.due {
		oldest, newest = minTime(oldest, at), maxTime(newest, at)
	}
	return newest.Sub(oldest) < c.took*time.Duration(len(c.due)-1)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// ackAll acknowledges every wake at once and counts them by alarm.
type ackAll struct {
	mu   sync.Mutex
	seen map[string]int
	n    atomic.Int64
}

func (w *ackAll) Wake(_ context.Context, wk domain.Wake) error {
	w.mu.Lock()
	w.seen[wk.AlarmID]++
	w.mu.Unlock()
	w.n.Add(1)
	return nil
}

// In a dense stream (alarms due 50 µs apart) the loop claims again at once after a
// claim that took all that was due, instead of first reading the next due time, which
// would find it due already: every claim the rule calls dense is followed by a claim,
// never by a NextDue read. Once the stream has passed, the loop reads NextDue again.
// Every wake arrives once.
func TestDenseStreamClaimsWithoutReadingNextDue(t *testing.T) {
	e := newEnv(t)
	const n = 2000
	start := time.Now().Add(1500 * time.Millisecond).Truncate(time.Millisecond)
	specs := make([]domain.Spec, 0, n)
	for i := range n {
		at := start.Add(time.Duration(i) * 50 * time.Microsecond)
		specs = append(specs, domain.Spec{Owner: "alice", Kind: domain.KindOnce, FireAt: &at})
	}
	for i := 0; i < n; i += 500 {
		if _, err := e.alarms.CreateBatch(context.Background(), specs[i:i+500]); err != nil {
			t.Fatal(err)
		}
	}
	if time.Now().After(start) {
		t.Fatalf("creating %d alarms took past their first due time", n)
	}
	store := &loopCalls{Store: e.store}
	w := &ackAll{seen: map[string]int{}}
	cfg := testConfig("dense")
	cfg.Batch, cfg.Concurrency = 1000, 1000
	d, err := dispatch.New(store, w, e.sclock, e.hints, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	eventually(t, 20*time.Second, "every wake", func() bool { return w.n.Load() >= n })
	time.Sleep(100 * time.Millisecond) // the loop idles after the stream
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	if len(w.seen) != n {
		t.Errorf("%d alarms woken, want %d", len(w.seen), n)
	}
	for id, k := range w.seen {
		if k != 1 {
			t.Errorf("alarm %s woken %d times", id, k)
		}
	}
	store.mu.Lock()
	calls := store.calls
	store.mu.Unlock()
	var dense, claims, reads int
	for i, c := range calls {
		if c.nextDue {
			reads++
			continue
		}
		claims++
		if !c.dense() || len(c.due) == c.asked || i+1 == len(calls) {
			continue
		}
		dense++
		if calls[i+1].nextDue {
			t.Errorf("call %d: a claim of %d alarms due %s apart on average, taking %s, was followed by a NextDue read",
				i, len(c.due), (c.due[len(c.due)-1].Sub(c.due[0]) / time.Duration(len(c.due)-1)).Abs(), c.took)
		}
	}
	t.Logf("%d alarms: %d claims, %d of them dense and partial, %d NextDue reads; stats %+v", n, claims, dense, reads, d.Stats())
	if dense == 0 {
		t.Fatalf("no claim was dense and partial: the stream did not exercise the rule")
	}
	if last := calls[len(calls)-1]; !last.nextDue && len(last.due) > 0 {
		t.Errorf("the loop's last call claimed %d alarms; after the stream it should idle on NextDue", len(last.due))
	}
	// A dense claim the fair turn already sends on (a full, behind claim turns fair claims
	// on) is not counted as dense, so the count may be below what the wrapper saw.
	if got := d.Stats().DenseClaims; got == 0 || got > int64(claims) {
		t.Errorf("Stats.DenseClaims = %d, want some and at most the %d claims made", got, claims)
	}
}
