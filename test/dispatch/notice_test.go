package dispatch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// An alarm naming an endpoint that fails for good is notified at the endpoint's
// failure_url: a signed POST of {"type": "alarm.failed", "alarm": ...}, delivered by a
// notice alarm of its own that the failing transition created.
func TestFailureNoticeReachesTheFailureURL(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	receiver := newReceiver(t, func(int64, wake) int { return http.StatusInternalServerError })
	failures := newReceiver(t, nil)
	if _, err := e.store.CreateEndpoint(ctx, domain.Endpoint{Owner: "alice", Name: "billing", URL: receiver.srv.URL,
		Secrets: []string{secret}, FailureURL: failures.srv.URL}); err != nil {
		t.Fatal(err)
	}
	def := e.waker(t, receiver)
	router := app.NewEndpointRouter(def, e.store, func(ep domain.Endpoint) (ports.Waker, error) {
		return webhook.New(webhook.Options{URL: ep.URL, Secrets: ep.Secrets, Timeout: 2 * time.Second})
	}, app.EndpointRouterConfig{})
	e.start(t, router, testConfig("w1"))

	a := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0)), MaxFailures: 1, Endpoint: "billing", Label: "invoice"})
	eventually(t, 5*time.Second, "the notice at the failure_url", func() bool { return len(failures.received()) == 1 })
	got := failures.received()[0]
	if err := webhook.Verify([]byte(secret), got.Header.Get(webhook.SignatureHeader), got.Raw, time.Now(), 0); err != nil {
		t.Errorf("the notice's signature: %v", err)
	}
	var body struct {
		Type  string `json:"type"`
		Alarm struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"alarm"`
	}
	if err := json.Unmarshal(got.Raw, &body); err != nil || body.Type != domain.NoticeFailed || body.Alarm.ID != a.ID || body.Alarm.Status != "failed" {
		t.Errorf("notice body %s (%v)", got.Raw, err)
	}
	if st := e.get(t, a.ID).Status; st != domain.StatusFailed {
		t.Errorf("the alarm is %s", st)
	}
}
