package api_test

import (
	"net/http"
	"testing"
	"time"
)

// Requests that fail to authenticate (an unknown token, none at all) are paced per
// client address: N a minute in bursts of N, then 429 rate_limited in the error
// envelope with Retry-After, answered before the token is looked up (with the store
// closed, still a 429, not a 503). Requests with a valid token are never counted: an
// address that only authenticates is never refused, however many it sends.
func TestFailedAuthenticationsArePacedPerAddress(t *testing.T) {
	t.Parallel()
	clock := &manualClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	e := newEnvWith(t, envOptions{authFailures: 5, limitsClock: clock, metrics: true})
	for i := range 300 {
		if res := e.as(e.alice, "GET", "/v1/alarms", ""); res.status != http.StatusOK {
			t.Fatalf("authenticated request %d: %d %s", i+1, res.status, res.body)
		}
	}
	for i := range 4 {
		expectError(t, e.as("chr_not_a_token", "GET", "/v1/alarms", ""), http.StatusUnauthorized, "unauthenticated", "")
		if i == 0 {
			expectError(t, e.request("GET", "/admin/v1/overview", "", nil), http.StatusUnauthorized, "unauthenticated", "")
		}
	}
	// Five failures a minute: one every 12 s.
	expectLimited(t, e.as("chr_not_a_token", "GET", "/v1/alarms", ""), "rate_limited", "12")
	expectLimited(t, e.request("POST", "/v1/alarms", onceBody, nil), "rate_limited", "12")
	if got := e.refusals("rate_limited"); got != "2" {
		t.Errorf("chronos_refusals_total{reason=rate_limited} = %s, want 2", got)
	}
	clock.advance(12 * time.Second)
	expectError(t, e.as("chr_still_not_a_token", "GET", "/admin/v1/alarms", ""), http.StatusUnauthorized, "unauthenticated", "")
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	expectLimited(t, e.as("chr_not_a_token", "GET", "/v1/alarms", ""), "rate_limited", "12")
}
