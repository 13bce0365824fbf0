package chronos_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/domain"
)

// loopback lets endpoints reach the tests' receivers on 127.0.0.1, as an operator's
// --endpoint-allow-cidr 127.0.0.0/8 does: the tests are the operator here.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// arrival is a wake as a receiver saw it: where it arrived, and which secret verifies
// its signature ("" none of those the receiver knows).
type arrival struct{ path, verifiedBy string }

// receiver is a webhook receiver that knows secret and reports every wake on arrived.
func receiver(t *testing.T, secret string, arrived chan<- arrival) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		a := arrival{path: r.URL.Path}
		if webhook.Verify([]byte(secret), r.Header.Get("Chronos-Signature"), body, time.Now(), time.Minute) == nil {
			a.verifiedBy = secret
		}
		arrived <- a
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// createFor makes an alarm of owner o, due now, whose wakes go to endpoint ("" none).
func createFor(t *testing.T, n *chronos.Node, endpoint string) domain.Alarm {
	t.Helper()
	zero := time.Duration(0)
	a, _, err := n.Alarms().Create(t.Context(), domain.Spec{Owner: "o", Kind: domain.KindOnce, Delay: &zero, Endpoint: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A program embedding chronos registers an endpoint through Node.Endpoints and its
// wakes reach the endpoint's URL, signed with the endpoint's secret, while the wakes
// that name none still go to the program's handler.
func TestEmbeddedNodeWakesAnEndpoint(t *testing.T) {
	arrived := make(chan arrival, 1)
	secret := admin.NewEndpointSecret()
	own := receiver(t, secret, arrived)
	handled := make(chan string, 1)
	node := runNode(t, memory.New(nil), chronos.Config{Handler: chronos.HandlerFunc(func(_ context.Context, w domain.Wake) error {
		handled <- w.AlarmID
		return nil
	}), Endpoints: chronos.EndpointOptions{AllowCIDRs: loopback}})
	if _, err := node.Endpoints().Create(t.Context(), domain.Endpoint{Owner: "o", Name: "mine", URL: own.URL + "/mine",
		Secrets: []string{secret}}, "test"); err != nil {
		t.Fatal(err)
	}

	createFor(t, node, "mine")
	select {
	case got := <-arrived:
		if want := (arrival{"/mine", secret}); got != want {
			t.Errorf("the endpoint's wake arrived at %s verified by %q; want %s verified by %q", got.path, got.verifiedBy, want.path, want.verifiedBy)
		}
	case id := <-handled:
		t.Fatalf("the wake of an alarm naming an endpoint went to the handler (%s)", id)
	case <-time.After(10 * time.Second):
		t.Fatal("the endpoint's wake never arrived")
	}

	plain := createFor(t, node, "")
	select {
	case id := <-handled:
		if id != plain.ID {
			t.Errorf("handler got %s, want %s", id, plain.ID)
		}
	case got := <-arrived:
		t.Fatalf("the wake of an alarm naming no endpoint arrived at %s", got.path)
	case <-time.After(10 * time.Second):
		t.Fatal("the handler never got the wake of an alarm naming no endpoint")
	}
}

// serve's waker: a wake that names no endpoint goes to the node's URL signed with its
// secrets; one that names an endpoint goes to the endpoint's URL signed with its own.
func TestWebhookNodeRoutesByEndpoint(t *testing.T) {
	arrived := make(chan arrival, 2)
	def, own := receiver(t, "default-secret", arrived), receiver(t, "endpoint-secret", arrived)
	cfg := chronos.Config{Concurrency: 10, Endpoints: chronos.EndpointOptions{UserAgent: "chronos/test", AllowCIDRs: loopback}}
	w, err := chronos.NewWebhookWaker(cfg, def.URL+"/default", []string{"default-secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cfg.Waker = w
	store := memory.New(nil)
	if _, err := store.CreateEndpoint(t.Context(), domain.Endpoint{Owner: "o", Name: "mine", URL: own.URL + "/mine",
		Secrets: []string{"endpoint-secret"}, MaxInFlight: 2}); err != nil {
		t.Fatal(err)
	}
	node := runNode(t, store, cfg)
	for _, c := range []struct {
		endpoint string
		want     arrival
	}{
		{"", arrival{"/default", "default-secret"}},
		{"mine", arrival{"/mine", "endpoint-secret"}},
	} {
		createFor(t, node, c.endpoint)
		select {
		case got := <-arrived:
			if got != c.want {
				t.Errorf("endpoint %q: arrived at %s verified by %q; want %s verified by %q", c.endpoint, got.path, got.verifiedBy, c.want.path, c.want.verifiedBy)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("endpoint %q: no wake arrived", c.endpoint)
		}
	}
}
