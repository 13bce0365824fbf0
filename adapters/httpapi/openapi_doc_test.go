package httpapi

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// What a reader of the document relies on beyond its validity: every operation (paths
// and webhooks) says what it does and shows a request or answer, every body it
// describes has an example (loadOpenAPI validates each against its schema), and a
// client generator has a server to call.
func TestOpenAPIEveryOperationHasADescriptionAndExamples(t *testing.T) {
	doc := loadOpenAPI(t)
	check := func(where string, op *openapi3.Operation) {
		if strings.TrimSpace(op.Description) == "" {
			t.Errorf("%s: no description", where)
		}
		shown := 0
		if op.RequestBody != nil {
			shown += mediaExamples(t, where+" request body", op.RequestBody.Value.Content)
		}
		for code, res := range op.Responses.Map() {
			shown += mediaExamples(t, where+" response "+code, res.Value.Content)
		}
		if shown == 0 {
			t.Errorf("%s: no example of a request or an answer", where)
		}
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			check(method+" "+path, op)
		}
	}
	for name, item := range doc.Webhooks {
		for method, op := range item.Operations() {
			check("webhook "+name+" "+method, op)
		}
	}
}

// mediaExamples counts the examples of content, failing the test for a media type
// that has none.
func mediaExamples(t *testing.T, where string, content openapi3.Content) int {
	t.Helper()
	n := 0
	for typ, mt := range content {
		if mt.Example == nil && len(mt.Examples) == 0 {
			t.Errorf("%s: %s has no example", where, typ)
		}
		n += len(mt.Examples)
		if mt.Example != nil {
			n++
		}
	}
	return n
}

func TestOpenAPIHasServers(t *testing.T) {
	doc := loadOpenAPI(t)
	if len(doc.Servers) == 0 {
		t.Fatal("no servers: clients generated from the document have no URL to call")
	}
	for _, s := range doc.Servers {
		if s.URL == "" || s.Description == "" {
			t.Errorf("server %+v: want a URL and a description", s)
		}
	}
}

// The wake a receiver gets is described as a webhook with its body and every header
// (test/api checks them against what a real waker sends), and with the answers the
// dispatcher tells apart: acknowledged, gone, retry later, failed. The trace context
// headers are optional (only a wake of an alarm created with one carries them), and so is
// Chronos-Redelivery (only a redelivery carries it).
func TestOpenAPIDescribesTheWake(t *testing.T) {
	doc := loadOpenAPI(t)
	headers := []string{"Chronos-Redelivery", "Chronos-Signature", "Idempotency-Key", "User-Agent", "traceparent", "tracestate", "webhook-id", "webhook-signature", "webhook-timestamp"}
	optional := []string{"Chronos-Redelivery", "traceparent", "tracestate"}
	for name, schema := range map[string]string{"wake": "Wake", "alarmNotice": "AlarmNotice"} {
		item := doc.Webhooks[name]
		if item == nil || item.Post == nil {
			t.Errorf("no webhook %q with a POST", name)
			continue
		}
		op := item.Post
		var got []string
		for _, p := range op.Parameters {
			if p.Value.In == openapi3.ParameterInHeader {
				if p.Value.Required == slices.Contains(optional, p.Value.Name) || p.Value.Schema == nil {
					t.Errorf("webhook %s: header %s: required %v, want %v, with a schema", name, p.Value.Name, p.Value.Required, !slices.Contains(optional, p.Value.Name))
				}
				got = append(got, p.Value.Name)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, headers) {
			t.Errorf("webhook %s: headers %v, want %v", name, got, headers)
		}
		if op.RequestBody == nil || op.RequestBody.Value.Content.Get("application/json") == nil ||
			op.RequestBody.Value.Content.Get("application/json").Schema.Value != doc.Components.Schemas[schema].Value {
			t.Errorf("webhook %s: want an application/json body of %s", name, schema)
		}
		codes := slices.Sorted(maps.Keys(op.Responses.Map()))
		if want := []string{"2XX", "410", "429", "503", "default"}; !slices.Equal(codes, want) {
			t.Errorf("webhook %s: answers %v, want %v", name, codes, want)
		}
		for _, code := range []string{"429", "503"} {
			if r := op.Responses.Value(code); r == nil || r.Value.Headers["Retry-After"] == nil {
				t.Errorf("webhook %s: %s without Retry-After", name, code)
			}
		}
	}
}
