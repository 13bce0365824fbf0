package api_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/chronoshq/chronos/adapters/httpapi"
)

// openAPI is the document GET /openapi.json serves, loaded and validated once, with the
// router that finds a request's operation in it.
var openAPI = sync.OnceValues(func() (*openAPIChecker, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(httpapi.OpenAPIJSON())
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, err
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &openAPIChecker{doc: doc, router: router}, nil
})

type openAPIChecker struct {
	doc    *openapi3.T
	router routers.Router
}

// check validates one response against the document: status, headers and body of the
// operation the request matched. A request no operation matches (a garbage path, a
// method the path does not serve) must still be answered in the error envelope.
func (c *openAPIChecker) check(req *http.Request, status int, header http.Header, body []byte) error {
	route, params, err := c.router.FindRoute(req)
	if errors.Is(err, routers.ErrPathNotFound) || errors.Is(err, routers.ErrMethodNotAllowed) {
		if ct := header.Get("Content-Type"); ct != "application/json" {
			return errors.New("Content-Type " + ct + ", want application/json")
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return err
		}
		return c.doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
	}
	if err != nil {
		return err
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(req.Context(), in)
}

// validatingTransport checks every response the API tests receive against openapi.yaml,
// failing the test that got one the document does not describe.
type validatingTransport struct {
	t    *testing.T
	next http.RoundTripper
}

func (v validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := v.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	checker, err := openAPI()
	if err != nil {
		v.t.Errorf("loading openapi.yaml: %v", err)
		return res, nil
	}
	if err := checker.check(req, res.StatusCode, res.Header, body); err != nil {
		v.t.Errorf("%s %s answered %d, which openapi.yaml does not describe: %v\nbody: %.2000s",
			req.Method, req.URL.RequestURI(), res.StatusCode, err, body)
	}
	return res, nil
}

func TestOpenAPIDocumentServed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.request("GET", "/openapi.json", "", nil) // no token needed
	if res.status != http.StatusOK {
		t.Fatalf("GET /openapi.json = %d %s", res.status, res.body)
	}
	if ct := res.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if !bytes.Equal(res.body, httpapi.OpenAPIJSON()) {
		t.Error("GET /openapi.json is not httpapi.OpenAPIJSON()")
	}
	doc, err := openapi3.NewLoader().LoadFromData(res.body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") || doc.Paths.Find("/v1/alarms/{id}") == nil {
		t.Errorf("served document: openapi %q, /v1/alarms/{id} %v; want 3.1.x and the route", doc.OpenAPI, doc.Paths.Find("/v1/alarms/{id}"))
	}
}
