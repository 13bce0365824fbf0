package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestRoutesFollowOptions(t *testing.T) {
	bare := Routes(Options{})
	if !slices.Contains(bare, Route{http.MethodPost, "/v1/alarms/{id}/pause"}) {
		t.Errorf("Routes(Options{}) lacks POST /v1/alarms/{id}/pause: %v", bare)
	}
	for _, r := range bare {
		if r.Template == "/metrics" || r.Template == "/v1/endpoints" || strings.HasPrefix(r.Template, "/admin") {
			t.Errorf("Routes(Options{}) has %v, which needs an option", r)
		}
	}
	full := Routes(Options{Admin: adminStub{}, Endpoints: endpointsStub{}, Tokens: tokensStub{}, MetricsHandler: http.NotFoundHandler()})
	for _, want := range []Route{{http.MethodGet, "/metrics"}, {http.MethodGet, "/v1/endpoints"},
		{http.MethodPost, "/admin/v1/dispatch/pause"}, {http.MethodDelete, "/admin/v1/owners/{owner}/endpoints/{name}"},
		{http.MethodPost, "/admin/v1/tokens"}, {http.MethodDelete, "/admin/v1/tokens/{id}"}} {
		if !slices.Contains(full, want) {
			t.Errorf("Routes with every option lacks %v", want)
		}
	}
}

// adminStub, endpointsStub and tokensStub only need to be non-nil: Routes calls no use
// case.
type adminStub struct{ Admin }

type endpointsStub struct{ Endpoints }

type tokensStub struct{ Tokens }
