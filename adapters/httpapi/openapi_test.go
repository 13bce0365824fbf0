package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gorilla/mux"

	"github.com/chronoshq/chronos/domain"
)

// loadOpenAPI loads and validates the document as GET /openapi.json serves it. Validate
// also checks every example (of a body, a parameter, a header) against its schema:
// kin-openapi's default, asked for here so that it cannot be turned off unnoticed. The
// tests only read the document, so it is loaded once.
func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openAPIDoc()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

var openAPIDoc = sync.OnceValues(func() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(OpenAPIJSON())
	if err != nil {
		return nil, fmt.Errorf("loading openapi.yaml: %w", err)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("openapi.yaml does not validate: %w", err)
	}
	return doc, nil
})

func TestOpenAPIDocumentValidates(t *testing.T) {
	doc := loadOpenAPI(t)
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Errorf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	errorSchema := doc.Components.Schemas["Error"].Value
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" || op.Summary == "" || strings.Contains(op.Summary, "\n") {
				t.Errorf("%s %s: want an operationId and a one-line summary", method, path)
			}
			// What every route that takes a token can answer.
			authenticated := op.Security == nil || len(*op.Security) > 0
			want := map[bool][]int{true: {401, 429, 500, 503}}[authenticated]
			if strings.HasPrefix(path, "/admin/") {
				want = append(want, 403)
			}
			for _, status := range want {
				if op.Responses.Status(status) == nil {
					t.Errorf("%s %s: no %d response", method, path, status)
				}
			}
			for code, res := range op.Responses.Map() {
				if code[0] != '4' && code[0] != '5' {
					continue
				}
				if mt := res.Value.Content.Get("application/json"); mt == nil || mt.Schema.Value != errorSchema {
					t.Errorf("%s %s: response %s is not the Error envelope", method, path, code)
				}
			}
		}
	}
}

// The router and the document describe the same routes: every route served is
// documented, and every documented route is served.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc := loadOpenAPI(t)
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	served := map[string]bool{}
	// Every optional route on: the admin routes (any Admin), the endpoint routes (any
	// Endpoints), the token routes (any Tokens) and /metrics (any handler).
	everything := newAPI(nil, Options{Admin: struct{ Admin }{}, Endpoints: struct{ Endpoints }{}, Tokens: struct{ Tokens }{}, Calendars: struct{ Calendars }{}, Redeliver: struct{ Redeliverer }{}, MetricsHandler: http.NotFoundHandler()})
	err := everything.routes().Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		path, err := route.GetPathTemplate()
		if err != nil {
			return err
		}
		methods, err := route.GetMethods()
		if err != nil {
			return err
		}
		for _, m := range methods {
			served[m+" "+path] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range missing(served, documented) {
		t.Errorf("%s is served but not documented in openapi.yaml", r)
	}
	for _, r := range missing(documented, served) {
		t.Errorf("%s is documented in openapi.yaml but not served", r)
	}
}

// missing lists the keys of a that b lacks, sorted.
func missing(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// The alarm view with every optional member set matches the document's Alarm: the API
// tests validate only what their alarms happen to hold.
func TestAlarmViewMatchesOpenAPI(t *testing.T) {
	schema := loadOpenAPI(t).Components.Schemas["Alarm"].Value
	full := sampleAlarm()
	full.FireAt, full.LastFiredAt = full.NextFireAt, full.NextFireAt
	full.ConversationID, full.WakeMessage, full.IdempotencyKey, full.LastError = "c", "w", "k", "e"
	full.FailureCount = 2
	for name, alarm := range map[string]domain.Alarm{"sample": sampleAlarm(), "full": full} {
		var buf bytes.Buffer
		if err := appendAlarm(&buf, alarm); err != nil {
			t.Fatal(err)
		}
		var view any
		if err := json.Unmarshal(buf.Bytes(), &view); err != nil {
			t.Fatal(err)
		}
		if err := schema.VisitJSON(view, openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("%s alarm %s does not match the document's Alarm: %v", name, buf.Bytes(), err)
		}
	}
}
