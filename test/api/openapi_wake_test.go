package api_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/domain"
)

// transportHeaders are set by net/http, not by the waker: the document describes
// what a receiver's code reads, not HTTP/1.1 framing.
var transportHeaders = []string{"Accept-Encoding", "Content-Length", "Content-Type"}

// The webhooks of openapi.yaml describe what a real waker sends: every header it sets is
// documented and matches its schema, and the body matches the documented one. A new
// header or body member cannot ship undocumented.
func TestOpenAPIWebhooksMatchWhatTheWakerSends(t *testing.T) {
	t.Parallel()
	checker, err := openAPI()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 26, 4, 16, 15, 963_000_000, time.UTC)
	fireAt := now
	spec := domain.Spec{Owner: "alice", Label: "tea", Kind: domain.KindOnce, FireAt: &fireAt, ConversationID: "conv-42",
		WakeMessage: "Time for tea.", Payload: []byte(`{ "cup": "green" }`), Endpoint: "billing",
		TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", TraceState: "congo=t61rcWkgMzE"}
	alarm, err := domain.NewAlarm("01a21611-7e74-727a-89bd-da9b9218c972", spec, now.Add(-time.Second), domain.Defaults{MaxFailures: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Its only delivery fails: the alarm fails for good, which sends its endpoint a notice.
	alarm.ClaimedBy, alarm.ClaimedAt = "node-1", now
	tr := domain.Decide(domain.Begin(alarm, now, domain.Policy{}), domain.DeliveryFailed("webhook: HTTP 500"), now, domain.Policy{})
	if tr.Notice == nil {
		t.Fatal("a failed alarm naming an endpoint made no notice")
	}
	for _, c := range []struct {
		name string // the webhook of openapi.yaml
		wake domain.Wake
	}{
		{"wake", domain.NewWake(alarm, now)},
		{"wake", domain.RedeliveryWake(alarm, alarm.ScheduledFor, 2, now)},
		{"alarmNotice", domain.NewWake(*tr.Notice, now)},
	} {
		name, wake := c.name, c.wake
		t.Run(name, func(t *testing.T) {
			req, body := sendWake(t, wake)
			item := checker.doc.Webhooks[name]
			if item == nil || item.Post == nil {
				t.Fatalf("openapi.yaml has no webhook %q with a POST", name)
			}
			route := &routers.Route{Spec: checker.doc, Path: req.URL.Path, PathItem: item, Method: http.MethodPost, Operation: item.Post}
			in := &openapi3filter.RequestValidationInput{Request: req, Route: route,
				Options: &openapi3filter.Options{MultiError: true}}
			if err := openapi3filter.ValidateRequest(t.Context(), in); err != nil {
				t.Errorf("the %s the waker sent does not match openapi.yaml: %v\nheaders: %v\nbody: %s", name, err, req.Header, body)
			}
			documented := map[string]bool{}
			for _, p := range item.Post.Parameters {
				if p.Value.In == "header" {
					documented[http.CanonicalHeaderKey(p.Value.Name)] = true
				}
			}
			for h := range req.Header {
				if !documented[h] && !slices.Contains(transportHeaders, h) {
					t.Errorf("the waker sets %s, which webhook %q does not document", h, name)
				}
			}
		})
	}
}

// sendWake delivers w with a real waker to a receiver that keeps the request, and
// returns it with its body restored for validation.
func sendWake(t *testing.T, w domain.Wake) (*http.Request, []byte) {
	t.Helper()
	got := make(chan *http.Request, 1)
	var body []byte
	receiver := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
		}
		body = b
		got <- r
		rw.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	waker, err := webhook.New(webhook.Options{URL: receiver.URL + "/chronos", Secrets: []string{"whsec_c2VjcmV0LWtleS1mb3ItZXhhbXBsZXM=", "old secret"},
		UserAgent: "chronos/v1.4.0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(waker.Close)
	if err := waker.Wake(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	req := <-got
	req.Body = io.NopCloser(bytes.NewReader(body))
	return req, body
}
