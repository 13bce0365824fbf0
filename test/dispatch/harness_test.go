// Package dispatch_test runs the real Dispatcher against a real SQLite store and a real
// HTTP receiver, through the real webhook waker: no mocks.
package dispatch_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/app/owners"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

const secret = "test-secret"

// wake is one delivery as the receiver saw it.
type wake struct {
	AlarmID       string          `json:"alarm_id"`
	Attempt       int             `json:"attempt"`
	OccurrenceKey string          `json:"occurrence_key"`
	ScheduledFor  time.Time       `json:"scheduled_for"`
	Payload       json.RawMessage `json:"payload"`
	Header        http.Header     `json:"-"`
	Raw           []byte          `json:"-"`
	At            time.Time       `json:"-"`
}

// receiver records every wake and answers with respond(n), n counting from 1.
type receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	wakes   []wake
	count   atomic.Int64
	respond func(n int64, w wake) int
}

// retryAfterStatus, returned by a receiver's respond, answers 503 with Retry-After: 1.
const retryAfterStatus = -1

func newReceiver(t *testing.T, respond func(n int64, w wake) int) *receiver {
	r := &receiver{respond: respond}
	r.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var w wake
		if err := json.Unmarshal(body, &w); err != nil {
			t.Errorf("receiver: bad wake body %q: %v", body, err)
		}
		w.Header, w.Raw, w.At = req.Header.Clone(), body, time.Now()
		n := r.count.Add(1)
		r.mu.Lock()
		r.wakes = append(r.wakes, w)
		r.mu.Unlock()
		status := http.StatusOK
		if r.respond != nil {
			status = r.respond(n, w)
		}
		if status == retryAfterStatus {
			rw.Header().Set("Retry-After", "1")
			status = http.StatusServiceUnavailable
		}
		rw.WriteHeader(status)
		_, _ = io.WriteString(rw, http.StatusText(status))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) received() []wake {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]wake(nil), r.wakes...)
}

// shiftClock is the process clock plus an adjustable offset, to make leases expire
// without waiting for them.
type shiftClock struct{ offset atomic.Int64 }

func (c *shiftClock) Now() time.Time                  { return time.Now().UTC().Add(time.Duration(c.offset.Load())) }
func (c *shiftClock) Advance(d time.Duration)         { c.offset.Add(int64(d)) }
func (c *shiftClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

type env struct {
	store  *sqlite.Store
	clock  *shiftClock
	alarms *owners.Alarms
	hints  *app.Hints
	sclock *app.StoreClock
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	clock := &shiftClock{}
	s, err := sqlite.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "chronos.db"), sqlite.Options{Migrate: true, Clock: clock})
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	sc := app.NewStoreClock()
	if err := sc.Sync(ctx, s); err != nil {
		t.Fatal(err)
	}
	h := app.NewHints()
	a := owners.NewAlarms(s, sc, h, owners.AlarmsConfig{Defaults: domain.Defaults{MaxFailures: 5}, HintWindow: time.Second}, nil)
	return &env{store: s, clock: clock, alarms: a, hints: h, sclock: sc}
}

// testConfig is fast: 20ms tick, 50ms→200ms backoff.
func testConfig(worker string) dispatch.Config {
	return dispatch.Config{
		Worker:          worker,
		Tick:            20 * time.Millisecond,
		Lease:           5 * time.Second,
		Batch:           10,
		Concurrency:     8,
		DeliveryTimeout: 2 * time.Second,
		DrainTimeout:    2 * time.Second,
		Policy:          domain.Policy{Backoff: domain.Backoff{Base: 50 * time.Millisecond, Cap: 200 * time.Millisecond}},
	}
}

func (e *env) waker(t *testing.T, r *receiver) ports.Waker {
	w, err := webhook.New(webhook.Options{URL: r.srv.URL, Secret: secret, Timeout: 2 * time.Second, MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// start runs a dispatcher until the test ends (or stop is called); stop returns Run's
// result after the drain.
func (e *env) start(t *testing.T, w ports.Waker, cfg dispatch.Config) (d *dispatch.Dispatcher, stop func() error) {
	t.Helper()
	d, err := dispatch.New(e.store, w, e.sclock, e.hints, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	var once sync.Once
	var result error
	stop = func() error {
		once.Do(func() { cancel(); result = <-done })
		return result
	}
	t.Cleanup(func() { _ = stop() })
	return d, stop
}

func (e *env) create(t *testing.T, spec domain.Spec) domain.Alarm {
	t.Helper()
	if spec.Owner == "" {
		spec.Owner = "alice"
	}
	a, _, err := e.alarms.Create(context.Background(), spec)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return a
}

func (e *env) get(t *testing.T, id string) domain.Alarm {
	t.Helper()
	a, err := e.alarms.Get(context.Background(), "alice", id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return a
}

func (e *env) events(t *testing.T, id string) []domain.Event {
	t.Helper()
	evs, err := e.alarms.Events(context.Background(), "alice", id, 0)
	if err != nil {
		t.Fatalf("events %s: %v", id, err)
	}
	return evs
}

func eventTypes(evs []domain.Event) []domain.EventType {
	out := make([]domain.EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// eventually polls cond every 10ms until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func ptr[T any](v T) *T { return &v }
