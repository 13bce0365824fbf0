package chronos_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// A wake refused with a 503 and a long body, then delivered with a 200, leaves two
// attempts in the log, newest first: each with its status, its content type, its body
// cut at AttemptBodyBytes (and marked so), a duration and this node's worker id.
func TestAttemptLogRecordsEveryAttempt(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(2 * time.Millisecond)
		if calls.Add(1) == 1 {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("overloaded: " + strings.Repeat("x", 4000)))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	cfg := chronos.Config{AttemptBodyBytes: 16, Backoff: domain.Backoff{Base: 10 * time.Millisecond, Cap: 10 * time.Millisecond},
		Endpoints: chronos.EndpointOptions{ReceiverErrors: webhook.ReceiverErrorsFull}}
	w, err := chronos.NewWebhookWaker(cfg, srv.URL, []string{"secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cfg.Waker = w
	store := memory.New(nil)
	node := runNode(t, store, cfg)
	a := createDue(t, node, 3)

	var attempts []domain.Event
	for deadline := time.Now().Add(10 * time.Second); len(attempts) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d attempts recorded, want 2", len(attempts))
		}
		if attempts, _, err = store.Attempts(t.Context(), ports.AttemptsQuery{Scope: ports.OwnedBy(a.Owner), AlarmID: a.ID}); err != nil {
			t.Fatal(err)
		}
	}
	ok, refused := attempts[0], attempts[1]
	if ok.Type != domain.EventFired || refused.Type != domain.EventRetryScheduled || ok.Attempt != 2 || refused.Attempt != 1 {
		t.Fatalf("attempts = %s (attempt %d), %s (attempt %d); want fired (2), retry_scheduled (1)", ok.Type, ok.Attempt, refused.Type, refused.Attempt)
	}
	for _, c := range []struct {
		ev        domain.Event
		status    int
		typ, body string
		truncated bool
	}{
		{ok, 200, "application/json", `{"ok":true}`, false},
		{refused, 503, "text/plain", "overloaded: xxxx", true},
	} {
		r := c.ev.Receipt
		if r.Status != c.status || r.ContentType != c.typ || string(r.Body) != c.body || r.Truncated != c.truncated {
			t.Errorf("%s: status %d, %q, body %q (truncated %v); want %d, %q, %q (truncated %v)",
				c.ev.Type, r.Status, r.ContentType, r.Body, r.Truncated, c.status, c.typ, c.body, c.truncated)
		}
		if r.Duration < 2*time.Millisecond || c.ev.Worker != node.WorkerID() {
			t.Errorf("%s: duration %s by %q; want at least the receiver's 2ms, by this node (%s)", c.ev.Type, r.Duration, c.ev.Worker, node.WorkerID())
		}
	}
	if !strings.Contains(refused.Message, "HTTP 503") {
		t.Errorf("the refusal's message = %q, want the error", refused.Message)
	}
}

// The wake URL's answers are the operator's receiver's: with --receiver-errors status
// (the default) the log keeps their status and no body.
func TestAttemptLogKeepsNoWakeURLBodyUnderStatusErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("internal gateway details"))
	}))
	defer srv.Close()
	cfg := chronos.Config{}
	w, err := chronos.NewWebhookWaker(cfg, srv.URL, []string{"secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cfg.Waker = w
	store := memory.New(nil)
	node := runNode(t, store, cfg)
	a := createDue(t, node, 3)
	var attempts []domain.Event
	for deadline := time.Now().Add(10 * time.Second); len(attempts) < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no attempt recorded")
		}
		if attempts, _, err = store.Attempts(t.Context(), ports.AttemptsQuery{Scope: ports.AnyOwner, AlarmID: a.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if r := attempts[0].Receipt; r.Status != 200 || r.Body != nil {
		t.Errorf("receipt = status %d, body %q; want 200 and no body", r.Status, r.Body)
	}
}
