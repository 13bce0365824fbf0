package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/domain"
)

// protectedRoutes is every /v1 route, with a body where one is expected.
func protectedRoutes(id string) []struct{ method, path, body string } {
	return []struct{ method, path, body string }{
		{"POST", "/v1/alarms", onceIn60s},
		{"GET", "/v1/alarms", ""},
		{"GET", "/v1/alarms/" + id, ""},
		{"DELETE", "/v1/alarms/" + id, ""},
		{"POST", "/v1/alarms/" + id + "/pause", ""},
		{"POST", "/v1/alarms/" + id + "/resume", ""},
		{"POST", "/v1/alarms/" + id + "/trigger", ""},
		{"GET", "/v1/alarms/" + id + "/events", ""},
	}
}

func TestUnauthenticated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, weekdays)
	revoked, tok, err := e.tokens.Create(e.ctx, "alice", domain.ScopeOwner)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.tokens.Revoke(e.ctx, tok.ID); err != nil {
		t.Fatal(err)
	}

	headers := []struct {
		name, authorization string
		tokenRefused        bool // a token was presented and refused: RFC 6750 invalid_token
	}{
		{"missing header", "", false},
		{"basic scheme", "Basic YWxpY2U6c2VjcmV0", false},
		{"scheme only", "Bearer", false},
		{"empty token", "Bearer ", false},
		{"token with a space", "Bearer " + e.alice + " extra", false},
		{"unknown token", "Bearer chr_notarealtokenatall", true},
		{"revoked token", "Bearer " + revoked, true},
	}
	for _, h := range headers {
		for _, r := range protectedRoutes(a.ID) {
			t.Run(h.name+"/"+r.method+" "+r.path, func(t *testing.T) {
				hdr := map[string]string{"Content-Type": "application/json"}
				if h.authorization != "" {
					hdr["Authorization"] = h.authorization
				}
				res := e.request(r.method, r.path, r.body, hdr)
				expectError(t, res, http.StatusUnauthorized, "unauthenticated", "")
				challenge := res.header.Get("WWW-Authenticate")
				if !strings.HasPrefix(challenge, "Bearer") {
					t.Errorf("WWW-Authenticate = %q, want a Bearer challenge", challenge)
				}
				if got := strings.Contains(challenge, `error="invalid_token"`); got != h.tokenRefused {
					t.Errorf("WWW-Authenticate = %q; invalid_token expected: %v", challenge, h.tokenRefused)
				}
			})
		}
	}

	// None of it touched data: the cron alarm is as it was, and no alarm was created.
	if got := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID, "")); got.Status != "active" || *got.UpdatedAt != *a.UpdatedAt {
		t.Errorf("alarm changed by unauthenticated requests: %+v", got)
	}
	var list struct {
		Alarms     []alarmView `json:"alarms"`
		NextCursor string      `json:"next_cursor"`
	}
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms", ""), &list)
	if len(list.Alarms) != 1 {
		t.Errorf("%d alarms, want only the one created with a token", len(list.Alarms))
	}
}

// Authentication comes before anything is read: a bad body without a token is a 401.
func TestUnauthenticatedBeforeValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.request("POST", "/v1/alarms", `{not json`, map[string]string{"Content-Type": "text/plain"})
	expectError(t, res, http.StatusUnauthorized, "unauthenticated", "")
}

func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, scheme := range []string{"bearer", "BEARER", "Bearer"} {
		res := e.request("GET", "/v1/alarms", "", map[string]string{"Authorization": scheme + " " + e.alice})
		if res.status != http.StatusOK {
			t.Errorf("scheme %q: status %d: %s", scheme, res.status, res.body)
		}
	}
}

// Another owner's alarm is indistinguishable from one that does not exist, and stays
// untouched.
func TestOtherOwnersAlarmIsNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, weekdays)
	for _, r := range protectedRoutes(a.ID)[2:] {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			bob := e.as(e.bob, r.method, r.path, "")
			expectError(t, bob, http.StatusNotFound, "not_found", "")
			unknown := e.as(e.bob, r.method, strings.Replace(r.path, a.ID, "0195f0e4-0000-7000-8000-000000000000", 1), "")
			expectError(t, unknown, http.StatusNotFound, "not_found", "")
			if string(bob.body) != string(unknown.body) {
				t.Errorf("another owner's alarm answers %s, an unknown one %s", bob.body, unknown.body)
			}
		})
	}
	if got := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID, "")); got.Status != "active" || *got.UpdatedAt != *a.UpdatedAt {
		t.Errorf("bob's requests changed alice's alarm: %+v", got)
	}
	var list struct {
		Alarms     []alarmView `json:"alarms"`
		NextCursor string      `json:"next_cursor"`
	}
	decodeStrict(t, e.as(e.bob, "GET", "/v1/alarms", ""), &list)
	if len(list.Alarms) != 0 {
		t.Errorf("bob lists %d alarms, want none of alice's", len(list.Alarms))
	}
}

func TestOddIDsAreNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, id := range []string{"nope", "%00", "a%0Ab", strings.Repeat("x", 300), "%FF%FE", "'%20OR%201=1"} {
		expectError(t, e.as(e.alice, "GET", "/v1/alarms/"+id, ""), http.StatusNotFound, "not_found", "")
		expectError(t, e.as(e.alice, "GET", "/v1/alarms/"+id+"/events", ""), http.StatusNotFound, "not_found", "")
	}
}
