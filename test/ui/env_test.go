package ui

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/adapters/webui"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/testserver"
)

// env is a dashboard and API over one SQLite store, mounted as serve mounts them.
type env struct {
	t      *testing.T
	ctx    context.Context
	srv    *httptest.Server
	server *testserver.Server
	store  *sqlite.Store
	tokens *admin.Tokens
	ui     *webui.UI
	owner  string // an owner token ("shop")
	admin  string // scope admin ("ops")
	reader string // scope admin:read
	// backupDir is the node's --backup-dir.
	backupDir string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	s := testserver.New(t, testserver.Options{Dashboard: true, RetentionHolder: "ui-test-node", BackupDir: dir})
	srv := httptest.NewServer(s.Handler)
	t.Cleanup(srv.Close)
	e := &env{t: t, ctx: t.Context(), srv: srv, server: s, store: s.Store, tokens: s.Tokens, ui: s.UI, backupDir: dir}
	e.owner = e.token("shop", domain.ScopeOwner)
	e.admin = e.token("ops", domain.ScopeAdmin)
	e.reader = e.token("ops", domain.ScopeAdminRead)
	return e
}

func (e *env) token(owner string, scope domain.Scope) string {
	e.t.Helper()
	plain, _, err := e.tokens.Create(e.ctx, owner, scope)
	if err != nil {
		e.t.Fatal(err)
	}
	return plain
}

// create posts an alarm through the API as the owner and returns its id.
func (e *env) create(body string) string {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(e.ctx, "POST", e.srv.URL+"/v1/alarms", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.owner)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		e.t.Fatalf("create %s: HTTP %d", body, res.StatusCode)
	}
	var out struct {
		Alarm struct {
			ID string `json:"id"`
		} `json:"alarm"`
	}
	if err := decodeJSON(res, &out); err != nil {
		e.t.Fatal(err)
	}
	return out.Alarm.ID
}

// fail makes the owner's due alarm id fail as a dispatcher would (one allowed failure).
func (e *env) fail(id string) { e.server.Fail(e.t, id) }

// browser is an HTTP client with a cookie jar that does not follow redirects, so tests
// see them.
func (e *env) browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// signIn signs a new browser in with token and returns it.
func (e *env) signIn(token string) *http.Client {
	e.t.Helper()
	c := e.browser()
	res := e.post(c, "/ui/login", url.Values{"token": {token}})
	if res.status != http.StatusSeeOther || res.location != "/ui/" {
		e.t.Fatalf("sign-in: %d to %q: %s", res.status, res.location, res.body)
	}
	return c
}
