package httpapi

import (
	_ "embed"
	"net/http"
	"slices"
	"sync"

	"github.com/oasdiff/yaml"
)

// openAPIYAML is the API's OpenAPI 3.1 document, written by hand. The route and
// response tests hold it to the router and to every answer the API tests receive.
//
//go:embed openapi.yaml
var openAPIYAML []byte

// openAPIJSON converts the document once, with the YAML library kin-openapi's loader
// decodes documents with. The tests load this JSON, not the YAML: what is served is
// what they validated.
var openAPIJSON = sync.OnceValue(func() []byte {
	doc, err := yaml.YAMLToJSON(openAPIYAML)
	if err != nil {
		// The document is embedded and the tests load it: this is a build defect.
		panic("httpapi: converting openapi.yaml to JSON: " + err.Error())
	}
	return append(doc, '\n')
})

// OpenAPIJSON returns the OpenAPI 3.1 document of /v1 and /admin/v1, and of the wakes
// receivers get (its webhooks), as JSON: the body GET /openapi.json answers. The caller
// owns the slice.
func OpenAPIJSON() []byte {
	return slices.Clone(openAPIJSON())
}

// openAPI serves GET /openapi.json. It needs no token: the document describes the API,
// it holds no data.
func (a *api) openAPI(w http.ResponseWriter, _ *http.Request) {
	writeBody(w, http.StatusOK, openAPIJSON())
}
