package dispatch_test

import (
	"context"
	"encoding/json"
	"github.com/chronoshq/chronos/test/contract"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/app/dispatch"
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
	router := dispatch.NewEndpointRouter(def, e.store, func(ep domain.Endpoint) (ports.Waker, error) {
		return webhook.New(webhook.Options{URL: ep.URL, Secrets: ep.Secrets, Timeout: 2 * time.Second})
	}, dispatch.EndpointRouterConfig{})
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

// An endpoint without a failure_url has nobody to tell: an alarm of it that fails for
// good makes no notice, so nothing is sent, counted as delivered or listed. A notice
// left from before its failure_url was removed fails at once (not retried, not counted
// as delivered), saying why.
func TestNoNoticeWithoutAFailureURL(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	receiver := newReceiver(t, func(int64, wake) int { return http.StatusInternalServerError })
	if _, err := e.store.CreateEndpoint(ctx, domain.Endpoint{Owner: "alice", Name: "billing", URL: receiver.srv.URL,
		Secrets: []string{secret}}); err != nil {
		t.Fatal(err)
	}
	router := dispatch.NewEndpointRouter(e.waker(t, receiver), e.store, func(ep domain.Endpoint) (ports.Waker, error) {
		return webhook.New(webhook.Options{URL: ep.URL, Secrets: ep.Secrets, Timeout: 2 * time.Second})
	}, dispatch.EndpointRouterConfig{})

	// A notice made while the endpoint still had a failure_url, due now.
	now := time.Now().UTC()
	left := domain.Alarm{ID: "old-notice-1", Owner: "alice", Label: "notice: old", Kind: domain.KindOnce, FireAt: now, NextFireAt: now,
		ScheduledFor: now, Payload: []byte(`{"type":"alarm.failed"}`), Status: domain.StatusActive, Delivery: domain.AtLeastOnce,
		MaxFailures: domain.NoticeMaxFailures, Endpoint: "billing", Series: domain.Series{Notice: domain.NoticeFailed}, CreatedAt: now, UpdatedAt: now}
	if _, _, err := contract.CreateOne(ctx, e.store, left); err != nil {
		t.Fatal(err)
	}
	d, _ := e.start(t, router, testConfig("w1"))

	a := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0)), MaxFailures: 1, Endpoint: "billing", Label: "invoice"})
	eventually(t, 5*time.Second, "the alarm failed and the old notice ended", func() bool {
		return e.get(t, a.ID).Status == domain.StatusFailed && e.get(t, left.ID).Status.Terminal()
	})
	all, _, err := e.alarms.List(ctx, "alice", ports.ListFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Errorf("alice has %d alarms, want the failed one and the old notice: no new notice", len(all))
	}
	old := e.get(t, left.ID)
	if old.Status != domain.StatusFailed || old.FailureCount != 1 || !strings.Contains(old.LastError, "no failure_url") {
		t.Errorf("the old notice: %s after %d attempts, %q; want failed at once, saying there is no failure_url", old.Status, old.FailureCount, old.LastError)
	}
	if st := d.WorkerStats(); st.Delivered != 0 {
		t.Errorf("%d wakes counted as delivered, want none", st.Delivered)
	}
}
