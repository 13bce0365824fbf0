package api_test

import (
	"net/http"
	"testing"
)

func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct{ method, path, allow string }{
		{"PUT", "/v1/alarms", "GET, POST"},
		{"DELETE", "/v1/alarms", "GET, POST"},
		{"PUT", "/v1/alarms/some-id", "GET, PATCH, DELETE"},
		{"POST", "/v1/alarms/some-id", "GET, PATCH, DELETE"},
		{"GET", "/v1/alarms/some-id/skip", "POST"},
		{"POST", "/v1/alarms/some-id/upcoming", "GET"},
		{"GET", "/v1/schedules/preview", "POST"},
		{"GET", "/v1/alarms/some-id/pause", "POST"},
		{"DELETE", "/v1/alarms/some-id/trigger", "POST"},
		{"POST", "/v1/alarms/some-id/events", "GET"},
		{"POST", "/healthz", "GET"},
		{"DELETE", "/readyz", "GET"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			res := e.as(e.alice, c.method, c.path, "")
			expectError(t, res, http.StatusMethodNotAllowed, "method_not_allowed", "")
			if got := res.header.Get("Allow"); got != c.allow {
				t.Errorf("Allow = %q, want %q", got, c.allow)
			}
		})
	}
}

func TestUnknownRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/", "/v2/alarms", "/v1", "/v1/alarms/x/y/z", "/v1/alarms/x/snooze", "/metricz"} {
		for _, token := range []string{e.alice, ""} {
			h := map[string]string{}
			if token != "" {
				h["Authorization"] = "Bearer " + token
			}
			expectError(t, e.request("GET", path, "", h), http.StatusNotFound, "not_found", "")
		}
	}
}

func TestRequestIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.request("GET", "/healthz", "", map[string]string{"X-Request-Id": "trace-abc-123"})
	if got := res.header.Get("X-Request-Id"); got != "trace-abc-123" {
		t.Errorf("X-Request-Id = %q, want the caller's", got)
	}
	a := e.as(e.alice, "GET", "/v1/alarms", "").header.Get("X-Request-Id")
	b := e.as(e.alice, "GET", "/v1/alarms", "").header.Get("X-Request-Id")
	if a == "" || a == b {
		t.Errorf("generated request ids %q and %q; want distinct non-empty ids", a, b)
	}
	if got := e.request("GET", "/nowhere", "", nil).header.Get("X-Request-Id"); got == "" {
		t.Error("a 404 carries no request id")
	}
}
