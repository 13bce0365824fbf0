package chronos_test

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/domain"
)

// The creator's context: its trace id, its span id, sampled.
const (
	creatorTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	creatorSpan   = "00f067aa0ba902b7"
	creatorParent = "00-" + creatorTrace + "-" + creatorSpan + "-01"
	creatorState  = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"
)

// traceReceiver is a webhook receiver that keeps each wake's trace headers by the
// alarm's label.
type traceReceiver struct {
	mu      sync.Mutex
	headers map[string]http.Header
}

func newTraceReceiver(t *testing.T) (*traceReceiver, string) {
	rc := &traceReceiver{headers: map[string]http.Header{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Label string `json:"label"`
		}
		b, _ := io.ReadAll(r.Body)
		if err := jsonUnmarshal(b, &body); err != nil {
			t.Errorf("receiver: %v", err)
		}
		rc.mu.Lock()
		rc.headers[body.Label] = r.Header.Clone()
		rc.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return rc, srv.URL
}

// wake waits for the wake of the alarm labelled label and returns its headers.
func (rc *traceReceiver) wake(t *testing.T, label string) http.Header {
	t.Helper()
	var h http.Header
	waitFor(t, "the wake of "+label, func() bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		h = rc.headers[label]
		return h != nil
	})
	return h
}

// webhookNode runs a node over a memory store whose wakes go to url, and serves its API;
// it returns the API's address and an owner token.
func webhookNode(t *testing.T, url string, cfg chronos.Config) (*chronos.Node, string, string) {
	t.Helper()
	waker, err := chronos.NewWebhookWaker(cfg, url, []string{"test-secret-for-traces"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Waker = waker
	n := runNode(t, memory.New(nil), cfg)
	plain, _, err := n.Tokens().Create(t.Context(), "shop", domain.ScopeOwner)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(n.Handler())
	t.Cleanup(srv.Close)
	return n, srv.URL, plain
}

// post sends body to the API with the token and headers, and wants status.
func post(t *testing.T, url, token, body string, headers map[string]string, status int) []byte {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("POST %s: %d %s, want %d", url, res.StatusCode, b, status)
	}
	return b
}

// wantChild fails unless traceparent is a child of parent: the same trace and flags, a
// span id of its own.
func wantChild(t *testing.T, what, traceparent, parent string) {
	t.Helper()
	tp, ok := domain.ParseTraceParent(traceparent)
	switch {
	case !ok:
		t.Errorf("%s: traceparent %q does not parse", what, traceparent)
	case domain.TraceID(tp) != domain.TraceID(parent) || tp[53:] != parent[53:]:
		t.Errorf("%s: traceparent %q is not in the trace of %q", what, tp, parent)
	case domain.SpanID(tp) == domain.SpanID(parent):
		t.Errorf("%s: traceparent %q has its parent's span id, want one of its own", what, tp)
	}
}

// Without OpenTelemetry: a wake carries a child of its creator's context (the create's
// headers, or a batch item's own fields), and no trace header at all when its alarm
// was created without one.
func TestWakeContinuesTheCreatorsTrace(t *testing.T) {
	rc, url := newTraceReceiver(t)
	_, api, token := webhookNode(t, url, chronos.Config{})

	post(t, api+"/v1/alarms", token, `{"kind":"once","delay_seconds":0,"label":"headers"}`,
		map[string]string{"traceparent": creatorParent, "tracestate": creatorState}, http.StatusCreated)
	h := rc.wake(t, "headers")
	wantChild(t, "a create's headers", h.Get("traceparent"), creatorParent)
	if got := h.Get("tracestate"); got != creatorState {
		t.Errorf("tracestate = %q, want the creator's %q", got, creatorState)
	}

	item := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"
	post(t, api+"/v1/alarms/batch", token, `{"alarms":[
		{"kind":"once","delay_seconds":0,"label":"item","traceparent":"`+item+`","tracestate":"k=v"},
		{"kind":"once","delay_seconds":0,"label":"request"}]}`,
		map[string]string{"traceparent": creatorParent}, http.StatusOK)
	h = rc.wake(t, "item")
	wantChild(t, "a batch item's own field", h.Get("traceparent"), item)
	if got := h.Get("tracestate"); got != "k=v" {
		t.Errorf("the item's tracestate = %q, want k=v", got)
	}
	h = rc.wake(t, "request")
	wantChild(t, "a batch item without its own", h.Get("traceparent"), creatorParent)
	if got := h.Values("tracestate"); len(got) != 0 {
		t.Errorf("tracestate %q sent, but the batch had none", got)
	}

	post(t, api+"/v1/alarms", token, `{"kind":"once","delay_seconds":0,"label":"none"}`, nil, http.StatusCreated)
	post(t, api+"/v1/alarms", token, `{"kind":"once","delay_seconds":0,"label":"malformed"}`,
		map[string]string{"traceparent": "00-not-a-trace"}, http.StatusCreated)
	for _, label := range []string{"none", "malformed"} {
		h = rc.wake(t, label)
		if h.Values("traceparent") != nil || h.Values("tracestate") != nil {
			t.Errorf("%s: wake sent traceparent %q, tracestate %q; want neither", label, h.Values("traceparent"), h.Values("tracestate"))
		}
	}
}

// A batch item's malformed trace field is refused naming the field; its neighbours are
// created.
func TestBatchItemTraceFieldRefused(t *testing.T) {
	_, url := newTraceReceiver(t)
	_, api, token := webhookNode(t, url, chronos.Config{})
	b := post(t, api+"/v1/alarms/batch", token, `{"alarms":[
		{"kind":"once","delay_seconds":60,"traceparent":"00-nope"},
		{"kind":"once","delay_seconds":60}]}`, nil, http.StatusOK)
	var res struct {
		Results []struct {
			Alarm *struct{ ID string }          `json:"alarm"`
			Error *struct{ Code, Field string } `json:"error"`
		} `json:"results"`
	}
	if err := jsonUnmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].Error == nil || res.Results[0].Error.Field != "traceparent" ||
		res.Results[0].Error.Code != "invalid_argument" || res.Results[1].Alarm == nil {
		t.Fatalf("results %s; want item 0 refused naming traceparent, item 1 created", b)
	}
}

// An in-process handler finds its wake's span context in its context: the creator's
// trace, a span id of the wake's own.
func TestInProcessHandlerSeesTheSpanContext(t *testing.T) {
	got := make(chan trace.SpanContext, 1)
	n, _ := start(t, func(ctx context.Context, w domain.Wake) error {
		got <- trace.SpanContextFromContext(ctx)
		return nil
	}, chronos.Config{})
	zero := time.Duration(0)
	if _, _, err := n.Alarms().Create(t.Context(), domain.Spec{Owner: "o", Kind: domain.KindOnce, Delay: &zero,
		TraceParent: creatorParent, TraceState: creatorState}); err != nil {
		t.Fatal(err)
	}
	select {
	case sc := <-got:
		if sc.TraceID().String() != creatorTrace || !sc.SpanID().IsValid() || sc.SpanID().String() == creatorSpan ||
			!sc.IsSampled() || sc.TraceState().String() != creatorState {
			t.Errorf("the handler's span context: trace %s, span %s, sampled %v, state %q; want trace %s, a span of its own, sampled, %q",
				sc.TraceID(), sc.SpanID(), sc.IsSampled(), sc.TraceState(), creatorTrace, creatorState)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not called")
	}
}

// otlpReceiver is an OTLP/HTTP collector: it keeps every span it is sent.
type otlpReceiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
}

func newOTLPReceiver(t *testing.T) (*otlpReceiver, string) {
	rc := &otlpReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("OTLP export to %s as %s, want /v1/traces as application/x-protobuf", r.URL.Path, r.Header.Get("Content-Type"))
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				t.Error(err)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		var req collectortrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			t.Errorf("OTLP body: %v", err)
			return
		}
		rc.mu.Lock()
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				rc.spans = append(rc.spans, ss.GetSpans()...)
			}
			if !hasAttr(rs.GetResource().GetAttributes(), "service.name", "chronos") {
				t.Errorf("resource %v has no service.name chronos", rs.GetResource().GetAttributes())
			}
		}
		rc.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return rc, srv.URL
}

// hasAttr reports whether attrs has key with value (a string, or an integer written in
// decimal).
func hasAttr(attrs []*commonpb.KeyValue, key, value string) bool {
	for _, a := range attrs {
		if a.GetKey() != key {
			continue
		}
		v := a.GetValue()
		if v.GetStringValue() == value || strconv.FormatInt(v.GetIntValue(), 10) == value {
			return true
		}
	}
	return false
}

// With --otel-endpoint, one alarm's create, claim, wake and apply reach the collector:
// create a child of the request's span; wake a child of create, linked to the claim,
// with the alarm id and the receiver's status; apply a child of the claim; and the
// receiver is sent the wake span's own id.
func TestOTLPExportsTheSpansOfOneAlarm(t *testing.T) {
	collector, otlpURL := newOTLPReceiver(t)
	rc, url := newTraceReceiver(t)
	n, api, token := webhookNode(t, url, chronos.Config{OTelEndpoint: otlpURL})

	b := post(t, api+"/v1/alarms", token, `{"kind":"once","delay_seconds":0,"label":"traced"}`,
		map[string]string{"traceparent": creatorParent, "tracestate": creatorState}, http.StatusCreated)
	var res struct{ Alarm struct{ ID string } }
	if err := jsonUnmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	created := res.Alarm
	sent := rc.wake(t, "traced").Get("traceparent")
	waitFor(t, "the alarm fired", func() bool { return get(t, n, created.ID).Status == domain.StatusFired })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.Stop(ctx); err != nil { // flushes the spans
		t.Fatal(err)
	}

	collector.mu.Lock()
	defer collector.mu.Unlock()
	byName := map[string][]*tracepb.Span{}
	for _, s := range collector.spans {
		byName[s.GetName()] = append(byName[s.GetName()], s)
	}
	one := func(name string) *tracepb.Span {
		t.Helper()
		if len(byName[name]) != 1 {
			t.Fatalf("%d %q spans exported, want 1 (all: %v)", len(byName[name]), name, names(collector.spans))
		}
		return byName[name][0]
	}
	create, claim, wake, apply := one("create"), one("claim"), one("wake"), one("apply")
	id := func(b []byte) string { return hex.EncodeToString(b) }

	if id(create.GetTraceId()) != creatorTrace || id(create.GetParentSpanId()) != creatorSpan {
		t.Errorf("create: trace %s parent %s, want a child of the request's %s", id(create.GetTraceId()), id(create.GetParentSpanId()), creatorParent)
	}
	if id(wake.GetTraceId()) != creatorTrace || id(wake.GetParentSpanId()) != id(create.GetSpanId()) {
		t.Errorf("wake: trace %s parent %s, want a child of create %s", id(wake.GetTraceId()), id(wake.GetParentSpanId()), id(create.GetSpanId()))
	}
	if links := wake.GetLinks(); len(links) != 1 || id(links[0].GetSpanId()) != id(claim.GetSpanId()) || id(links[0].GetTraceId()) != id(claim.GetTraceId()) {
		t.Errorf("wake links %v, want one to the claim %s", links, id(claim.GetSpanId()))
	}
	if !hasAttr(wake.GetAttributes(), "chronos.alarm_id", created.ID) || !hasAttr(wake.GetAttributes(), "http.response.status_code", "200") {
		t.Errorf("wake attributes %v, want chronos.alarm_id %s and http.response.status_code 200", wake.GetAttributes(), created.ID)
	}
	if !hasAttr(create.GetAttributes(), "chronos.alarm_id", created.ID) {
		t.Errorf("create attributes %v, want chronos.alarm_id %s", create.GetAttributes(), created.ID)
	}
	if !hasAttr(claim.GetAttributes(), "chronos.batch_size", "1") {
		t.Errorf("claim attributes %v, want chronos.batch_size 1", claim.GetAttributes())
	}
	if id(apply.GetTraceId()) != id(claim.GetTraceId()) || id(apply.GetParentSpanId()) != id(claim.GetSpanId()) {
		t.Errorf("apply: trace %s parent %s, want a child of the claim %s", id(apply.GetTraceId()), id(apply.GetParentSpanId()), id(claim.GetSpanId()))
	}
	if want := "00-" + creatorTrace + "-" + id(wake.GetSpanId()) + "-01"; sent != want {
		t.Errorf("the receiver got traceparent %q, want the wake span's %q", sent, want)
	}
}

func names(spans []*tracepb.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.GetName())
	}
	return out
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
