package chronos_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/domain"
)

// serve's waker: a wake that names no endpoint goes to URL signed with Secrets; one that
// names an endpoint goes to the endpoint's URL signed with its own secret.
func TestWebhookWakerRoutesByEndpoint(t *testing.T) {
	type got struct{ path, verified string }
	arrived := make(chan got, 2)
	receiver := func(secret string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			g := got{path: r.URL.Path}
			if webhook.Verify([]byte(secret), r.Header.Get("Chronos-Signature"), body, time.Now(), time.Minute) == nil {
				g.verified = secret
			}
			arrived <- g
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	def, own := receiver("default-secret"), receiver("endpoint-secret")
	store := memory.New(nil)
	if _, err := store.CreateEndpoint(t.Context(), domain.Endpoint{Owner: "o", Name: "mine", URL: own.URL + "/mine",
		Secrets: []string{"endpoint-secret"}, MaxInFlight: 2}); err != nil {
		t.Fatal(err)
	}
	w, closeIdle, err := chronos.NewWebhookWaker(store, chronos.WebhookOptions{URL: def.URL + "/default",
		Secrets: []string{"default-secret"}, Concurrency: 10, UserAgent: "chronos/test"})
	if err != nil {
		t.Fatal(err)
	}
	defer closeIdle()
	for _, c := range []struct {
		endpoint string
		want     got
	}{
		{"", got{"/default", "default-secret"}},
		{"mine", got{"/mine", "endpoint-secret"}},
	} {
		wake := domain.Wake{AlarmID: "a1", Owner: "o", Kind: domain.KindOnce, Endpoint: c.endpoint, ScheduledFor: time.Now()}
		if err := w.Wake(t.Context(), wake); err != nil {
			t.Fatalf("endpoint %q: %v", c.endpoint, err)
		}
		if g := <-arrived; g != c.want {
			t.Errorf("endpoint %q: arrived at %s verified by %q; want %s verified by %q", c.endpoint, g.path, g.verified, c.want.path, c.want.verified)
		}
	}
}
