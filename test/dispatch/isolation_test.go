package dispatch_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// slowWaker is a webhook waker to r whose own timeout is long, so a hung receiver is
// cut off by the dispatcher's DeliveryTimeout (or released by the test) first.
func slowWaker(t *testing.T, r *receiver) ports.Waker {
	t.Helper()
	w, err := webhook.New(webhook.Options{URL: r.srv.URL, Secret: secret, Timeout: time.Minute, MaxConns: 16})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// deferrals counts the dispatcher's Deferred calls by reason.
type deferrals struct {
	ports.NopMetrics
	mu       sync.Mutex
	byReason map[string]int
}

func (m *deferrals) Deferred(reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byReason == nil {
		m.byReason = map[string]int{}
	}
	m.byReason[reason]++
}

func (m *deferrals) count(reason string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.byReason[reason]
}

func (e *env) getAs(t *testing.T, owner, id string) domain.Alarm {
	t.Helper()
	a, err := e.alarms.Get(context.Background(), owner, id)
	if err != nil {
		t.Fatalf("get %s of %s: %v", id, owner, err)
	}
	return a
}

// deliveries counts the wakes r received per alarm.
func deliveries(r *receiver) map[string]int {
	n := map[string]int{}
	for _, w := range r.received() {
		n[w.AlarmID]++
	}
	return n
}

// One hung wake holds only its own outcome and lease: the other wakes of its batch are
// applied (fired, events written, leases released) within a second of their delivery,
// while it is still in flight. Before issue 24 a batch was applied when its slowest
// wake ended, so these waited for the hung one.
func TestAHungWakeHoldsOnlyItsOwnOutcome(t *testing.T) {
	e := newEnv(t)
	release := make(chan struct{})
	var hungID atomic.Value // the alarm id whose wake hangs
	hungID.Store("")
	r := newReceiver(t, func(_ int64, w wake) int {
		if w.AlarmID == hungID.Load().(string) {
			<-release
		}
		return http.StatusOK
	})
	var once sync.Once
	let := func() { once.Do(func() { close(release) }) }
	t.Cleanup(let) // before the receiver closes: it waits for the hung request
	cfg := testConfig("w1")
	cfg.Batch, cfg.Concurrency = 16, 16
	cfg.OwnerMaxInFlight = cfg.Concurrency // no owner cap: one owner's batch
	cfg.DeliveryTimeout, cfg.Lease = 20*time.Second, 30*time.Second
	e.start(t, slowWaker(t, r), cfg)

	const n = 8
	at := time.Now().Add(300 * time.Millisecond).Truncate(time.Millisecond) // one instant: one claim
	var ids []string
	for range n {
		ids = append(ids, e.create(t, domain.Spec{Kind: domain.KindOnce, FireAt: &at}).ID)
	}
	hung, others := ids[0], ids[1:]
	hungID.Store(hung)

	eventually(t, 5*time.Second, "every wake delivered or in flight", func() bool { return r.count.Load() == n })
	delivered := time.Now()
	eventually(t, time.Second, "the other wakes' outcomes applied", func() bool {
		for _, id := range others {
			if a := e.get(t, id); a.Status != domain.StatusFired || a.Claimed() {
				return false
			}
		}
		return true
	})
	t.Logf("the other %d outcomes applied %s after the last wake arrived", len(others), time.Since(delivered).Round(time.Millisecond))
	for _, id := range others {
		if types := eventTypes(e.events(t, id)); !slices.Equal(types, []domain.EventType{domain.EventCreated, domain.EventFired}) {
			t.Errorf("%s: events %v, want created, fired", id, types)
		}
	}
	if a := e.get(t, hung); a.Status != domain.StatusActive || !a.Claimed() {
		t.Fatalf("the hung wake's alarm: status %s lease %q, want active and still leased", a.Status, a.ClaimedBy)
	}

	let()
	eventually(t, 5*time.Second, "the hung wake's outcome applied once it answered", func() bool {
		a := e.get(t, hung)
		return a.Status == domain.StatusFired && !a.Claimed()
	})
	for id, k := range deliveries(r) {
		if k != 1 {
			t.Errorf("%s delivered %d times, want once", id, k)
		}
	}
}

// An owner whose receiver hangs has at most OwnerMaxInFlight wakes in flight on a
// node; its other wakes are held back (owner_cap) and come back, while another owner's
// wakes are delivered promptly. Once the receiver answers, every wake is delivered,
// once.
func TestOwnerCapKeepsAHungOwnerToItsShare(t *testing.T) {
	e := newEnv(t)
	release := make(chan struct{})
	var noisyIDs sync.Map // alarm id → true for the noisy owner's alarms
	var inFlight, peak atomic.Int64
	r := newReceiver(t, func(_ int64, w wake) int {
		if _, noisy := noisyIDs.Load(w.AlarmID); noisy {
			n := inFlight.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			<-release
			inFlight.Add(-1)
		}
		return http.StatusOK
	})
	var once sync.Once
	let := func() { once.Do(func() { close(release) }) }
	t.Cleanup(let)
	m := &deferrals{}
	cfg := testConfig("w1")
	cfg.Concurrency, cfg.OwnerMaxInFlight = 8, 2
	cfg.DeliveryTimeout, cfg.Lease = 20*time.Second, 30*time.Second
	cfg.Metrics = m
	d, _ := e.start(t, slowWaker(t, r), cfg)

	const noisyN = 12
	now := time.Now()
	var noisy []string
	for range noisyN {
		a := e.create(t, domain.Spec{Owner: "noisy", Kind: domain.KindOnce, FireAt: &now})
		noisyIDs.Store(a.ID, true)
		noisy = append(noisy, a.ID)
	}
	eventually(t, 5*time.Second, "the noisy owner's receiver hung at its cap", func() bool { return inFlight.Load() == 2 })

	// The quiet owner's alarms fall due one every 100ms while the noisy one's hang.
	type quiet struct {
		id  string
		due time.Time
	}
	var quiets []quiet
	start := time.Now().Add(100 * time.Millisecond)
	for i := range 8 {
		due := start.Add(time.Duration(i) * 100 * time.Millisecond)
		a := e.create(t, domain.Spec{Owner: "quiet", Kind: domain.KindOnce, FireAt: &due})
		quiets = append(quiets, quiet{a.ID, a.FireAt})
	}
	last := quiets[len(quiets)-1].due
	eventually(t, time.Until(last)+2*time.Second, "the quiet owner's wakes delivered", func() bool {
		for _, q := range quiets {
			if e.getAs(t, "quiet", q.id).Status != domain.StatusFired {
				return false
			}
		}
		return true
	})
	arrived := map[string]time.Time{}
	for _, w := range r.received() {
		arrived[w.AlarmID] = w.At
	}
	var worst time.Duration
	for _, q := range quiets {
		worst = max(worst, arrived[q.id].Sub(q.due))
	}
	t.Logf("the quiet owner's worst lag beside a hung owner: %s; held back for the owner cap: %d", worst.Round(time.Millisecond), m.count(ports.DeferredOwnerCap))
	if worst > time.Second {
		t.Errorf("the quiet owner's wakes arrived up to %s late, want under 1s", worst)
	}
	if got := peak.Load(); got > 2 {
		t.Errorf("the noisy owner had %d wakes in flight, want at most OwnerMaxInFlight (2)", got)
	}
	if m.count(ports.DeferredOwnerCap) == 0 || d.Stats().Deferred == 0 {
		t.Error("no wake was held back for the owner cap")
	}
	for _, id := range noisy {
		if a := e.getAs(t, "noisy", id); a.Status != domain.StatusActive {
			t.Errorf("noisy %s: %s while its receiver hangs, want active (held back, in flight or due again)", id, a.Status)
		}
	}

	let()
	eventually(t, 20*time.Second, "every noisy alarm fired once its receiver answered", func() bool {
		for _, id := range noisy {
			if a := e.getAs(t, "noisy", id); a.Status != domain.StatusFired || a.Claimed() {
				return false
			}
		}
		return true
	})
	if got := peak.Load(); got > 2 {
		t.Errorf("the noisy owner had %d wakes in flight, want at most 2", got)
	}
	got := deliveries(r)
	for _, id := range noisy {
		if got[id] != 1 {
			t.Errorf("noisy %s delivered %d times, want once", id, got[id])
		}
	}
	for _, q := range quiets {
		if got[q.id] != 1 {
			t.Errorf("quiet %s delivered %d times, want once", q.id, got[q.id])
		}
	}
	for _, id := range noisy {
		for _, ev := range e.eventsAs(t, "noisy", id) {
			if ev.Type != domain.EventCreated && ev.Type != domain.EventFired {
				t.Errorf("noisy %s: event %s; a wake held back is no attempt", id, ev.Type)
			}
		}
		if a := e.getAs(t, "noisy", id); a.FailureCount != 0 {
			t.Errorf("noisy %s: %d failures counted for hold-backs", id, a.FailureCount)
		}
	}
}

func (e *env) eventsAs(t *testing.T, owner, id string) []domain.Event {
	t.Helper()
	evs, err := e.alarms.Events(context.Background(), owner, id, 0)
	if err != nil {
		t.Fatalf("events %s: %v", id, err)
	}
	return evs
}
