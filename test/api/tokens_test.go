package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app/admin"
)

// tokenView is a token as /admin/v1/tokens shows it; decodeStrict refuses any member
// not here, so a secret or a hash in a list would fail the test.
type tokenView struct {
	ID         string     `json:"id"`
	Owner      string     `json:"owner"`
	Scope      string     `json:"scope"`
	Note       string     `json:"note"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

type issuedToken struct {
	Token string `json:"token"`
	tokenView
}

// issue posts body to /admin/v1/tokens as the admin and expects 201.
func (e *env) issue(body string) issuedToken {
	e.t.Helper()
	res := e.as(e.ops, "POST", "/admin/v1/tokens", body)
	if res.status != http.StatusCreated {
		e.t.Fatalf("issuing %s: %d %s", body, res.status, res.body)
	}
	if cc := res.header.Get("Cache-Control"); cc != "no-store" {
		e.t.Errorf("Cache-Control of the answer carrying a secret = %q, want no-store", cc)
	}
	var out issuedToken
	decodeStrict(e.t, res, &out)
	return out
}

// listTokens reads GET /admin/v1/tokens[?owner=] as token.
func (e *env) listTokens(token, owner string) []tokenView {
	e.t.Helper()
	path := "/admin/v1/tokens"
	if owner != "" {
		path += "?owner=" + url.QueryEscape(owner)
	}
	res := e.as(token, "GET", path, "")
	if res.status != http.StatusOK {
		e.t.Fatalf("GET %s: %d %s", path, res.status, res.body)
	}
	var out struct {
		Tokens []tokenView `json:"tokens"`
	}
	decodeStrict(e.t, res, &out)
	return out.Tokens
}

// An admin issues a token over the API: the secret is in the 201 alone, works at once,
// and the list shows the token (note, scope, times) but never the secret or its hash.
func TestAdminIssuesAToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	got := e.issue(`{"owner":" billing ","scope":"owner","note":"billing service, prod"}`)
	if !strings.HasPrefix(got.Token, admin.TokenPrefix) || got.ID == "" || got.Owner != "billing" || got.Scope != "owner" ||
		got.Note != "billing service, prod" || got.LastUsedAt != nil || got.RevokedAt != nil || got.CreatedAt.IsZero() {
		t.Fatalf("issued %+v", got)
	}
	if res := e.as(got.Token, "GET", "/v1/alarms", ""); res.status != http.StatusOK {
		t.Fatalf("the new token: GET /v1/alarms %d %s", res.status, res.body)
	}
	if res := e.as(got.Token, "GET", "/admin/v1/tokens", ""); res.status != http.StatusForbidden {
		t.Errorf("an owner token issued over the API reached the admin list: %d", res.status)
	}

	defaulted := e.issue(`{"owner":"billing"}`)
	reader := e.issue(`{"owner":"ops","scope":"admin:read"}`)
	if defaulted.Scope != "owner" || reader.Scope != "admin:read" {
		t.Errorf("scopes: no scope gave %q (want owner), admin:read gave %q", defaulted.Scope, reader.Scope)
	}

	res := e.as(e.reader, "GET", "/admin/v1/tokens?owner=billing", "")
	for _, secret := range []string{got.Token, defaulted.Token, admin.HashToken(got.Token), admin.HashToken(defaulted.Token)} {
		if strings.Contains(string(res.body), secret) {
			t.Fatalf("the list carries a secret or its hash: %s", res.body)
		}
	}
	list := e.listTokens(e.reader, "billing")
	if len(list) != 2 || list[0].ID != got.ID || list[1].ID != defaulted.ID {
		t.Fatalf("billing's tokens: %+v; want the two issued, oldest first", list)
	}
	if all := e.listTokens(e.ops, ""); len(all) != 7 { // alice, bob, ops, reader, and the three issued
		t.Errorf("every token: %d listed, want 7", len(all))
	}
	if none := e.listTokens(e.ops, "nobody"); len(none) != 0 {
		t.Errorf("an owner without tokens: %+v", none)
	}
}

// A token's last use shows in the list, to the minute: the first request records it.
func TestTokenListShowsLastUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.issue(`{"owner":"billing"}`)
	if res := e.as(tok.Token, "GET", "/v1/alarms", ""); res.status != http.StatusOK {
		t.Fatal(res.status)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		list := e.listTokens(e.ops, "billing")
		if list[0].LastUsedAt != nil {
			if d := list[0].LastUsedAt.Sub(list[0].CreatedAt); d < 0 || d > time.Minute {
				t.Errorf("last used %s, created %s", list[0].LastUsedAt, list[0].CreatedAt)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("last_used_at still null 5s after the token's first use")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Revoking answers 204 (again for a revoked token), keeps the token listed with
// revoked_at, and the token is refused at once on the node that revoked it.
func TestAdminRevokesAToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.issue(`{"owner":"billing"}`)
	if res := e.as(tok.Token, "GET", "/v1/alarms", ""); res.status != http.StatusOK {
		t.Fatal(res.status) // the token is now in this node's cache
	}
	for i := range 2 {
		if res := e.as(e.ops, "DELETE", "/admin/v1/tokens/"+tok.ID, ""); res.status != http.StatusNoContent {
			t.Fatalf("revoke #%d: %d %s", i+1, res.status, res.body)
		}
	}
	expectError(t, e.as(tok.Token, "GET", "/v1/alarms", ""), http.StatusUnauthorized, "unauthenticated", "")
	list := e.listTokens(e.ops, "billing")
	if len(list) != 1 || list[0].RevokedAt == nil {
		t.Errorf("after revoking: %+v; want the token listed with revoked_at", list)
	}
	expectError(t, e.as(e.ops, "DELETE", "/admin/v1/tokens/tok_nosuchtoken", ""), http.StatusNotFound, "not_found", "")
}

// Only an admin token issues and revokes; admin:read lists, and is told why it may not
// do more; owner tokens reach none of the three.
func TestTokenRoutesFollowScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	victim := e.issue(`{"owner":"billing"}`)
	for _, tc := range []struct {
		who, token   string
		method, path string
		body         string
		want         int
		message      string
	}{
		{"admin:read", e.reader, "POST", "/admin/v1/tokens", `{"owner":"x","scope":"admin"}`, http.StatusForbidden, "read-only"},
		{"admin:read", e.reader, "POST", "/admin/v1/tokens", `{"owner":"x"}`, http.StatusForbidden, "read-only"},
		{"admin:read", e.reader, "DELETE", "/admin/v1/tokens/" + victim.ID, "", http.StatusForbidden, "read-only"},
		{"owner", e.alice, "GET", "/admin/v1/tokens", "", http.StatusForbidden, "admin token"},
		{"owner", e.alice, "POST", "/admin/v1/tokens", `{"owner":"alice","scope":"admin"}`, http.StatusForbidden, "admin token"},
		{"owner", e.alice, "DELETE", "/admin/v1/tokens/" + victim.ID, "", http.StatusForbidden, "admin token"},
	} {
		res := e.as(tc.token, tc.method, tc.path, tc.body)
		got := expectError(t, res, tc.want, "forbidden", "")
		if !strings.Contains(got.Message, tc.message) {
			t.Errorf("%s %s as %s: message %q, want it to say %q", tc.method, tc.path, tc.who, got.Message, tc.message)
		}
	}
	if list := e.listTokens(e.reader, ""); len(list) != 5 {
		t.Errorf("%d tokens after the refusals, want the 5 made before them", len(list))
	}
	if res := e.as(victim.Token, "GET", "/v1/alarms", ""); res.status != http.StatusOK {
		t.Errorf("a refused revoke revoked the token: %d", res.status)
	}
}

// A token the API cannot issue is a 400 naming the field, and nothing is stored.
func TestIssueTokenValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		body, code, field string
	}{
		{`{}`, "invalid_argument", "owner"},
		{`{"owner":"   "}`, "invalid_argument", "owner"},
		{`{"owner":"a\u0007b"}`, "invalid_argument", "owner"},
		{`{"owner":"` + strings.Repeat("o", 201) + `"}`, "invalid_argument", "owner"},
		{`{"owner":"a","scope":"root"}`, "invalid_argument", "scope"},
		{`{"owner":"a","scope":"Admin"}`, "invalid_argument", "scope"},
		{`{"owner":"a","note":"` + strings.Repeat("é", 201) + `"}`, "invalid_argument", "note"},
		{`{"owner":"a","note":"two\nlines"}`, "invalid_argument", "note"},
		{`{"owner":"a","secret":"chr_mine"}`, "invalid_request", "secret"},
		{`{"owner":5}`, "invalid_request", "owner"},
	} {
		t.Run(tc.body[:min(len(tc.body), 40)], func(t *testing.T) {
			expectError(t, e.as(e.ops, "POST", "/admin/v1/tokens", tc.body), http.StatusBadRequest, tc.code, tc.field)
		})
	}
	// 200 characters of two bytes each are a note, 200 bytes an owner.
	e.issue(`{"owner":"` + strings.Repeat("o", 200) + `","note":"` + strings.Repeat("é", 200) + `"}`)
	if list := e.listTokens(e.ops, ""); len(list) != 5 {
		t.Errorf("%d tokens, want the 4 of the test server and the valid one", len(list))
	}
	expectError(t, e.as(e.ops, "GET", "/admin/v1/tokens?owner="+url.QueryEscape("a\x00b"), ""), http.StatusBadRequest, "invalid_argument", "owner")
}
