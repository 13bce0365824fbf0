package ui

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/httpapi"
	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/adapters/webui"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// env is a dashboard and API over one SQLite store, mounted as serve mounts them.
type env struct {
	t      *testing.T
	ctx    context.Context
	srv    *httptest.Server
	store  *sqlite.Store
	tokens *app.Tokens
	ui     *webui.UI
	owner  string // an owner token ("shop")
	admin  string // scope admin ("ops")
	reader string // scope admin:read
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := t.Context()
	store, err := sqlite.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "chronos.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	clock := app.NewStoreClock()
	if err := clock.Sync(ctx, store); err != nil {
		t.Fatal(err)
	}
	alarms := app.NewAlarms(store, clock, nil, app.AlarmsConfig{Defaults: domain.Defaults{MaxFailures: 5}}, nil)
	tokens := app.NewTokens(store, clock)
	retention, err := app.NewRetention(store, app.RetentionConfig{Retention: time.Hour, Holder: "ui-test-node"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gate := app.NewDispatchGate(store, time.Second, nil, nil)
	admin := app.NewAdmin(store, clock, gate, retention, app.AdminConfig{Lease: time.Minute, WorkerTimeout: 30 * time.Second}, nil)
	ui, err := webui.New(admin, tokens, store, webui.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(webui.Prefix, ui)
	mux.Handle("/", httpapi.New(alarms, tokens, store, httpapi.Options{Admin: admin}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e := &env{t: t, ctx: ctx, srv: srv, store: store, tokens: tokens, ui: ui}
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
func (e *env) fail(id string) {
	e.t.Helper()
	c, err := e.store.ClaimDue(e.ctx, ports.ClaimParams{Worker: "ui-test", Lease: time.Minute, Batch: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, a := range c.Alarms {
		o := domain.Delivered()
		if a.ID == id {
			o = domain.DeliveryFailed("HTTP 503: receiver down")
		}
		tr := domain.Decide(domain.Begin(a, c.Now), o, c.Now, domain.Policy{Backoff: domain.DefaultBackoff})
		if _, err := e.store.Apply(e.ctx, []domain.Transition{tr}); err != nil {
			e.t.Fatal(err)
		}
	}
}

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
