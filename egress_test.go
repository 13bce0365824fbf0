package chronos_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/adapters/metrics"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// countingReceiver answers 200 with a body an owner must never read back, and counts
// the wakes that reach it.
func countingReceiver(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("internal service: secret-answer"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// An owner's endpoint on loopback, by address or by a name that resolves there, gets
// no wake: the node refuses to connect, records one failed attempt that says why and
// holds no answer, does not retry it, and counts it. The operator's own wake URL on
// loopback keeps delivering.
func TestEndpointOnLoopbackIsRefusedAtConnect(t *testing.T) {
	def, defHits := countingReceiver(t)
	internal, internalHits := countingReceiver(t)
	m := metrics.New(metrics.Options{})
	cfg := chronos.Config{Metrics: m, MetricsHandler: m.Handler()}
	w, err := chronos.NewWebhookWaker(cfg, def.URL, []string{"default-secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cfg.Waker = w
	store := memory.New(nil)
	// An address was refused when registered; what an endpoint stored before holds is
	// refused when the node connects.
	byAddr := domain.Endpoint{Owner: "o", Name: "by-addr", URL: internal.URL + "/w", Secrets: []string{admin32()}}
	if _, err := store.CreateEndpoint(t.Context(), byAddr); err != nil {
		t.Fatal(err)
	}
	node := runNode(t, store, cfg)
	byAddr.Name = "again"
	var ve *domain.ValidationError
	if _, err := node.Endpoints().Create(t.Context(), byAddr, "test"); !errors.As(err, &ve) || ve.Field != "url" {
		t.Fatalf("registering %s: %v, want a refusal naming url", byAddr.URL, err)
	}
	// A name passes registration: what it resolves to is checked at connect.
	port := internal.URL[strings.LastIndex(internal.URL, ":")+1:]
	if _, err := node.Endpoints().Create(t.Context(), domain.Endpoint{Owner: "o", Name: "by-name", URL: "http://localhost:" + port + "/w",
		Secrets: []string{admin32()}}, "test"); err != nil {
		t.Fatal(err)
	}

	plain := createFor(t, node, "")
	addrAlarm, nameAlarm := createFor(t, node, "by-addr"), createFor(t, node, "by-name")
	failed := func(id string) domain.Alarm {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			a, err := store.Get(t.Context(), ports.OwnedBy("o"), id)
			if err != nil {
				t.Fatal(err)
			}
			if a.Status != domain.StatusActive {
				return a
			}
			if time.Now().After(deadline) {
				t.Fatalf("alarm %s still active: %+v", id, a)
			}
		}
	}
	if a := failed(addrAlarm.ID); a.Status != domain.StatusFailed || a.FailureCount != 1 ||
		a.LastError != "egress refused: 127.0.0.1 is loopback; see --endpoint-allow-cidr (not retried)" {
		t.Errorf("by address: %s after %d failures, last_error %q; want failed at the first, not retried", a.Status, a.FailureCount, a.LastError)
	}
	if a := failed(nameAlarm.ID); a.Status != domain.StatusFailed || a.FailureCount != 1 ||
		!strings.HasPrefix(a.LastError, "egress refused: ") || !strings.Contains(a.LastError, " is loopback; see --endpoint-allow-cidr") {
		t.Errorf("by name: %s after %d failures, last_error %q; want refused as loopback", a.Status, a.FailureCount, a.LastError)
	}
	if a := failed(plain.ID); a.Status != domain.StatusFired {
		t.Errorf("the wake URL's alarm: %s, want fired", a.Status)
	}
	if n := internalHits.Load(); n != 0 {
		t.Errorf("the internal service was reached %d times", n)
	}
	if n := defHits.Load(); n != 1 {
		t.Errorf("the wake URL got %d wakes, want 1", n)
	}

	// The owner's attempt log: the refusal, no answer.
	tok, _, err := node.Tokens().Create(t.Context(), "o", domain.ScopeOwner)
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(node.Handler())
	defer api.Close()
	req, _ := http.NewRequest(http.MethodGet, api.URL+"/v1/alarms/"+addrAlarm.ID+"/attempts", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var page struct {
		Attempts []map[string]any `json:"attempts"`
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET attempts: %d %v", res.StatusCode, err)
	}
	if len(page.Attempts) != 1 {
		t.Fatalf("attempts = %v, want one", page.Attempts)
	}
	at := page.Attempts[0]
	if at["type"] != "failed" || at["error"] != "egress refused: 127.0.0.1 is loopback; see --endpoint-allow-cidr (not retried)" ||
		at["status"] != nil || at["response"] != nil {
		t.Errorf("attempt = %v, want the refusal with no status and no response", at)
	}

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `chronos_egress_refused_total{class="loopback"} 2`) {
		t.Errorf("metrics lack two loopback refusals:\n%s", grepLines(rec.Body.String(), "chronos_egress_refused_total"))
	}
}

// An operator's --endpoint-allow-cidr 127.0.0.0/8 lets an endpoint on loopback be
// registered and woken.
func TestEndpointAllowCIDRLetsLoopbackThrough(t *testing.T) {
	internal, hits := countingReceiver(t)
	node := runNode(t, memory.New(nil), chronos.Config{Handler: chronos.HandlerFunc(func(context.Context, domain.Wake) error { return nil }),
		Endpoints: chronos.EndpointOptions{AllowCIDRs: loopback}})
	if _, err := node.Endpoints().Create(t.Context(), domain.Endpoint{Owner: "o", Name: "mine", URL: internal.URL + "/w",
		Secrets: []string{admin32()}}, "test"); err != nil {
		t.Fatal(err)
	}
	createFor(t, node, "mine")
	for deadline := time.Now().Add(10 * time.Second); hits.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the endpoint's wake never arrived")
		}
	}
}

// admin32 is an endpoint secret long enough to be registered.
func admin32() string { return strings.Repeat("s", domain.MinEndpointSecretLen) }

// grepLines returns the lines of s that contain substr.
func grepLines(s, substr string) string {
	var out []string
	for line := range strings.Lines(s) {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}
