package ui

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/domain"
)

var issuedSecret = regexp.MustCompile(`value="(chr_[A-Za-z0-9_-]+)"`)

// An admin session creates a token (its secret on that answer alone, and it works),
// filters the list by owner, and revokes a token after being asked.
func TestTokensPage(t *testing.T) {
	e := newEnv(t)
	c := e.signIn(e.admin)
	page := e.get(c, "/ui/tokens")
	if page.status != http.StatusOK || !strings.Contains(page.body, "New token") || strings.Count(page.body, "Revoke…") != 3 {
		t.Fatalf("tokens page: %d, want the create form and a revoke button per token:\n%s", page.status, page.body)
	}
	csrf := e.csrf(c, "/ui/tokens")

	r := e.post(c, "/ui/tokens", url.Values{"csrf": {csrf}, "owner": {"billing"}, "scope": {"owner"}, "note": {"billing service"}})
	m := issuedSecret.FindStringSubmatch(r.body)
	if r.status != http.StatusOK || m == nil || !strings.Contains(r.body, "shown this once") {
		t.Fatalf("creating: %d, want the page with the new secret:\n%s", r.status, r.body)
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the page with a secret is cacheable: %q", cc)
	}
	tok, err := e.tokens.Authenticate(e.ctx, m[1])
	if err != nil || tok.Owner != "billing" || tok.Scope != domain.ScopeOwner || tok.Note != "billing service" {
		t.Fatalf("the shown secret: %+v, %v", tok, err)
	}
	if again := e.get(c, "/ui/tokens"); strings.Contains(again.body, m[1]) || !strings.Contains(again.body, "billing service") {
		t.Error("the list shows the secret again, or not the new token")
	}
	if filtered := e.get(c, "/ui/tokens?owner=billing"); strings.Count(filtered.body, "<code>tok_") != 1 || !strings.Contains(filtered.body, tok.ID) {
		t.Errorf("filtered by owner billing:\n%s", filtered.body)
	}

	r = e.post(c, "/ui/tokens", url.Values{"csrf": {csrf}, "owner": {" "}, "scope": {"owner"}})
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "owner: is required") {
		t.Errorf("an empty owner: %d, want the form again naming owner", r.status)
	}
	r = e.post(c, "/ui/tokens", url.Values{"csrf": {csrf}, "owner": {"x"}, "scope": {"root"}})
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "scope: must be") {
		t.Errorf("an unknown scope: %d, want the form again naming scope", r.status)
	}

	// Without the page's script, the server asks before revoking.
	revoke := "/ui/tokens/" + tok.ID + "/revoke"
	if r := e.post(c, revoke, url.Values{"csrf": {csrf}}); r.status != http.StatusOK || !strings.Contains(r.body, "Revoke token "+tok.ID+"?") {
		t.Errorf("revoke without confirm: %d, want the question", r.status)
	}
	if _, err := e.tokens.Authenticate(e.ctx, m[1]); err != nil {
		t.Fatal("the question revoked the token")
	}
	if r := e.post(c, revoke, url.Values{"csrf": {csrf}, "confirm": {"yes"}}); r.status != http.StatusSeeOther || r.location != "/ui/tokens" {
		t.Fatalf("revoke: %d to %q", r.status, r.location)
	}
	if _, err := e.tokens.Authenticate(e.ctx, m[1]); err == nil {
		t.Error("the revoked token still works")
	}
	if after := e.get(c, "/ui/tokens?owner=billing"); !strings.Contains(after.body, "Token "+tok.ID+" revoked.") || !strings.Contains(after.body, "revoked") {
		t.Errorf("after revoking: no flash or no revoked state")
	}
	if r := e.post(c, "/ui/tokens/tok_nope/revoke", url.Values{"csrf": {csrf}, "confirm": {"yes"}}); r.status != http.StatusNotFound {
		t.Errorf("revoking an unknown token: %d", r.status)
	}
}

// A read-only session lists tokens but is offered no create or revoke control, and the
// server refuses both from it.
func TestTokensPageReadOnly(t *testing.T) {
	e := newEnv(t)
	c := e.signIn(e.reader)
	page := e.get(c, "/ui/tokens")
	if page.status != http.StatusOK || strings.Contains(page.body, "New token") || strings.Contains(page.body, "/revoke") ||
		strings.Contains(page.body, `<form method="post" action="/ui/tokens"`) {
		t.Errorf("read-only tokens page: %d, with a control that changes things", page.status)
	}
	for _, p := range []string{"ops", "shop"} {
		if !strings.Contains(page.body, ">"+p+"<") {
			t.Errorf("the list lacks owner %s", p)
		}
	}
	toks, _ := e.tokens.List(e.ctx, "")
	csrf := e.csrf(c, "/ui/tokens")
	if r := e.post(c, "/ui/tokens", url.Values{"csrf": {csrf}, "owner": {"x"}, "scope": {"admin"}}); r.status != http.StatusForbidden {
		t.Errorf("read-only create: %d, want 403", r.status)
	}
	if r := e.post(c, "/ui/tokens/"+toks[0].ID+"/revoke", url.Values{"csrf": {csrf}, "confirm": {"yes"}}); r.status != http.StatusForbidden {
		t.Errorf("read-only revoke: %d, want 403", r.status)
	}
	if after, _ := e.tokens.List(e.ctx, ""); len(after) != len(toks) || after[0].Revoked() {
		t.Error("a refused form issued or revoked a token")
	}
}

// The endpoints page lists every owner's endpoints, or one owner's, with their limits,
// and never a secret.
func TestEndpointsPage(t *testing.T) {
	e := newEnv(t)
	for _, body := range []string{
		`{"name":"billing","url":"https://billing.example.com/wake","secrets":["topsecret-one-of-at-least-24-bytes","topsecret-two-of-at-least-24-bytes"],"max_in_flight":8,"rate_per_second":2.5}`,
		`{"name":"mail","url":"https://mail.example.com/wake","secrets":["topsecret-three-of-at-least-24-bytes"]}`,
	} {
		e.adminPost("/admin/v1/owners/shop/endpoints", body)
	}
	e.adminPost("/admin/v1/owners/other/endpoints", `{"name":"hooks","url":"https://other.example.com/h","secrets":["topsecret-four-of-at-least-24-bytes"]}`)
	c := e.signIn(e.reader)
	page := e.get(c, "/ui/endpoints")
	if page.status != http.StatusOK || strings.Contains(page.body, "topsecret") {
		t.Fatalf("endpoints page: %d, or a secret shown", page.status)
	}
	for _, want := range []string{"https://billing.example.com/wake", ">8<", "2.5/s", "unpaced", "no cap", "hooks"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the endpoints page lacks %q", want)
		}
	}
	if shop := e.get(c, "/ui/endpoints?owner=shop"); strings.Contains(shop.body, "hooks") || !strings.Contains(shop.body, "mail") {
		t.Error("filtered by owner shop, the page shows another owner's endpoint or not shop's")
	}
	if none := e.get(c, "/ui/endpoints?owner=nobody"); !strings.Contains(none.body, "nobody has no endpoint") {
		t.Error("an owner without endpoints: no empty row")
	}
}

// A URL stored with credentials before they were refused shows them as xxxxx on the
// endpoints page, as every API view does, to an admin:read session too.
func TestEndpointsPageRedactsCredentials(t *testing.T) {
	e := newEnv(t)
	if _, err := e.store.CreateEndpoint(e.ctx, domain.Endpoint{Owner: "shop", Name: "old",
		URL: "https://user:hunter2@billing.example.com/wake", FailureURL: "https://failtoken@billing.example.com/failures",
		Secrets: []string{"topsecret-one-of-at-least-24-bytes"}}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{e.reader, e.admin} {
		page := e.get(e.signIn(who), "/ui/endpoints")
		if page.status != http.StatusOK {
			t.Fatalf("endpoints page: %d", page.status)
		}
		for _, leak := range []string{"hunter2", "user:", "failtoken"} {
			if strings.Contains(page.body, leak) {
				t.Errorf("the endpoints page shows %q", leak)
			}
		}
		for _, want := range []string{"https://xxxxx@billing.example.com/wake", "https://xxxxx@billing.example.com/failures"} {
			if !strings.Contains(page.body, want) {
				t.Errorf("the endpoints page lacks %q", want)
			}
		}
	}
}

// adminPost posts body to the admin API as the admin token and expects 201.
func (e *env) adminPost(path, body string) {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(e.ctx, "POST", e.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.admin)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		e.t.Fatalf("POST %s: HTTP %d", path, res.StatusCode)
	}
}
