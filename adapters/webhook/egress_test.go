package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chronoshq/chronos/domain"
)

// loopbackReceiver is a receiver on 127.0.0.1 that counts what reaches it.
func loopbackReceiver(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// A name that resolves to loopback is refused when the waker connects: the check is on
// the address, after DNS, so no name can lead a wake into the node's own network. The
// error is the policy's, in its own words, whatever ReceiverErrors quotes.
func TestEgressRefusedAtConnect(t *testing.T) {
	srv, hits := loopbackReceiver(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, quote := range []ReceiverErrors{ReceiverErrorsStatus, ReceiverErrorsFull} {
		for _, url := range []string{"http://localhost:" + port + "/w", srv.URL + "/w"} {
			wk := newWaker(t, Options{URL: url, Egress: &domain.EgressPolicy{}, ReceiverErrors: quote})
			resp, err := wk.WakeResponse(context.Background(), sampleWake())
			var refused *domain.EgressError
			if !errors.As(err, &refused) || refused.Class != domain.EgressLoopback {
				t.Fatalf("%s (%s): error %v, want the egress policy's refusal", url, quote, err)
			}
			if !strings.HasPrefix(err.Error(), "egress refused: ") || !strings.HasSuffix(err.Error(), " is loopback; see --endpoint-allow-cidr") {
				t.Errorf("%s (%s): error text %q", url, quote, err)
			}
			if resp.Status != 0 || resp.Body != nil {
				t.Errorf("%s (%s): a response %+v from a wake never sent", url, quote, resp)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the receiver was reached %d times", n)
	}
}

// A range the operator allows is reached; a waker without a policy (the operator's
// own --wake-url) is never checked.
func TestEgressAllowedRangeAndTrustedWaker(t *testing.T) {
	srv, hits := loopbackReceiver(t)
	allowed := domain.NewEgressPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	if err := newWaker(t, Options{URL: srv.URL, Egress: &allowed}).Wake(context.Background(), sampleWake()); err != nil {
		t.Fatalf("allowed 127.0.0.0/8: %v", err)
	}
	if err := newWaker(t, Options{URL: srv.URL}).Wake(context.Background(), sampleWake()); err != nil {
		t.Fatalf("no policy: %v", err)
	}
	if n := hits.Load(); n != 2 {
		t.Fatalf("the receiver got %d wakes, want 2", n)
	}
}

// Through a proxy the address connected to would be the proxy's and the receiver's
// unchecked: a waker with a policy connects itself.
func TestEgressWakerUsesNoProxy(t *testing.T) {
	wk := newWaker(t, Options{URL: "http://hooks.example.com/w", Egress: &domain.EgressPolicy{}})
	if wk.client.Transport.(*http.Transport).Proxy != nil {
		t.Fatal("a waker with an egress policy goes through the environment's proxy")
	}
}
