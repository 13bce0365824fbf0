package chronos_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/domain"
)

// slowReceiver answers every wake after hold and counts the most it held at once, and
// the wakes it answered.
type slowReceiver struct {
	hold time.Duration

	mu       sync.Mutex
	now, top int
	answered int
}

func (s *slowReceiver) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	s.now++
	s.top = max(s.top, s.now)
	s.mu.Unlock()
	time.Sleep(s.hold)
	s.mu.Lock()
	s.now--
	s.answered++
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (s *slowReceiver) figures() (top, answered int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.top, s.answered
}

// A serve-like node (a webhook waker to one URL) keeps that receiver, which every owner
// shares, at WakeURLMaxInFlight while two owners use it, though one owner alone could
// have far more in flight (the owner cap is half of Concurrency); every wake still
// arrives. With the limit off, the same load puts all of it in the receiver at once.
func TestWakeURLReceiverSharedByOwnersIsLimited(t *testing.T) {
	for _, c := range []struct {
		name   string
		limit  int
		maxTop int // the most the receiver may have held at once
		minTop int
		due    int // the busy owner's alarms
	}{
		{name: "limit 20", limit: 20, maxTop: 20 + 5, minTop: 1, due: 150},
		{name: "no limit", limit: -1, maxTop: 1 << 30, minTop: 60, due: 150},
	} {
		t.Run(c.name, func(t *testing.T) {
			recv := &slowReceiver{hold: 100 * time.Millisecond}
			srv := httptest.NewServer(recv)
			defer srv.Close()
			cfg := chronos.Config{Concurrency: 400, WakeURLMaxInFlight: c.limit}
			w, err := chronos.NewWebhookWaker(cfg, srv.URL, []string{"secret"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			cfg.Waker = w
			store := memory.New(nil)
			now := time.Now()
			// The quiet owner's few alarms fall due a little before the busy owner's
			// many, so both owners are at the receiver while the busy one's queue builds.
			zero := time.Duration(0)
			create := func(owner string, n int, due time.Time) {
				as := make([]domain.Alarm, n)
				for i := range as {
					a, err := domain.NewAlarm(fmt.Sprintf("%s-%03d", owner, i), domain.Spec{Owner: owner, Kind: domain.KindOnce, Delay: &zero}, due, domain.Defaults{MaxFailures: 5})
					if err != nil {
						t.Fatal(err)
					}
					as[i] = a
				}
				if _, err := store.CreateBatch(t.Context(), as); err != nil {
					t.Fatal(err)
				}
			}
			create("quiet", 5, now.Add(-time.Second))
			create("busy", c.due, now.Add(-500*time.Millisecond))
			runNode(t, store, cfg)
			deadline := time.Now().Add(20 * time.Second)
			for {
				if _, answered := recv.figures(); answered >= c.due+5 {
					break
				}
				if time.Now().After(deadline) {
					_, answered := recv.figures()
					t.Fatalf("%d of %d wakes answered", answered, c.due+5)
				}
				time.Sleep(10 * time.Millisecond)
			}
			top, _ := recv.figures()
			t.Logf("the receiver held at most %d wakes at once", top)
			if top > c.maxTop || top < c.minTop {
				t.Fatalf("the receiver held %d wakes at once; want %d to %d", top, c.minTop, c.maxTop)
			}
		})
	}
}
