package api_test

import (
	"net/http"
	"testing"
)

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/healthz", "/readyz"} {
		res := e.request("GET", path, "", nil) // no token needed
		if res.status != http.StatusOK || string(res.body) != "{\"status\":\"ok\"}\n" {
			t.Errorf("GET %s = %d %q, want 200 {\"status\":\"ok\"}", path, res.status, res.body)
		}
	}

	// With the store gone the process is still healthy, but not ready.
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	res := e.request("GET", "/readyz", "", nil)
	expectError(t, res, http.StatusServiceUnavailable, "unavailable", "")
	if res.header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	// No token is needed, so nothing of the database is told: the log has the cause.
	if want := `{"error":{"code":"unavailable","message":"store unavailable"}}` + "\n"; string(res.body) != want {
		t.Errorf("GET /readyz with the store closed = %s, want %s", res.body, want)
	}
	if res := e.request("GET", "/healthz", "", nil); res.status != http.StatusOK {
		t.Errorf("healthz with the store closed = %d, want 200", res.status)
	}
}
