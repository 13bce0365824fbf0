package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/webui"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/testserver"
	"github.com/chronoshq/chronos/ports"
)

// sessionCookie signs a browser in with token on srv and returns it and its cookie.
func sessionCookie(t *testing.T, e *env, srvURL, token string) (*http.Client, *http.Cookie) {
	t.Helper()
	c := e.browser()
	req, _ := http.NewRequest("POST", srvURL+"/ui/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	for _, ck := range res.Cookies() {
		if ck.Name == "chronos_session" && ck.Value != "" {
			return c, ck
		}
	}
	t.Fatalf("sign-in on %s set no session cookie (%d)", srvURL, res.StatusCode)
	return nil, nil
}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// M2: the database holds only the SHA-256 of a session's id, and no key: whatever a
// reader of the database makes of its rows is no cookie.
func TestDatabaseAloneYieldsNoSession(t *testing.T) {
	e := newEnv(t)
	c, ck := sessionCookie(t, e, e.srv.URL, e.admin)
	stored, err := e.store.SessionByHash(e.ctx, hashOf(ck.Value))
	if err != nil {
		t.Fatalf("the session is not stored under the SHA-256 of its cookie: %v", err)
	}
	if stored.TokenHash != admin.HashToken(e.admin) || strings.Contains(ck.Value, stored.TokenHash) {
		t.Errorf("stored token hash %q; the cookie must name the session only", stored.TokenHash)
	}
	if _, ok, _ := e.store.GetState(e.ctx, "ui-session-key"); ok {
		t.Error("a cookie signing key is stored in chronos_state")
	}
	if r := e.get(c, "/ui/"); r.status != http.StatusOK {
		t.Fatalf("the real cookie: %d", r.status)
	}
	u, _ := url.Parse(e.srv.URL + "/ui/")
	for name, forged := range map[string]string{
		"the stored hash": stored.Hash, "the token's hash": stored.TokenHash, "garbage": "x.y",
	} {
		b := e.browser()
		b.Jar.SetCookies(u, []*http.Cookie{{Name: "chronos_session", Value: forged, Path: "/ui/"}})
		if r := e.get(b, "/ui/"); r.status != http.StatusSeeOther {
			t.Errorf("a cookie of %s: %d, want the sign-in page", name, r.status)
		}
	}
}

// Revoking the admin token ends its sessions (within admin.TokenCacheTTL).
func TestRevokedTokenEndsItsSessions(t *testing.T) {
	e := newEnv(t)
	plain, tok, err := e.tokens.Create(e.ctx, "ops", domain.ScopeAdmin)
	if err != nil {
		t.Fatal(err)
	}
	c := e.signIn(plain)
	if r := e.get(c, "/ui/"); r.status != http.StatusOK {
		t.Fatalf("signed in: %d", r.status)
	}
	if err := e.tokens.Revoke(e.ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(admin.TokenCacheTTL + 100*time.Millisecond)
	if r := e.get(c, "/ui/"); r.status != http.StatusSeeOther {
		t.Errorf("after revoking its token: %d, want the sign-in page", r.status)
	}
}

// manualNow is a clock a test moves.
type manualNow struct {
	mu sync.Mutex
	t  time.Time
}

func (m *manualNow) now() time.Time { m.mu.Lock(); defer m.mu.Unlock(); return m.t }
func (m *manualNow) add(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.t = m.t.Add(d)
}

// A session ends at its TTL; the next sign-in deletes the expired rows.
func TestExpiredSessionsEndAndAreSwept(t *testing.T) {
	e := newEnv(t)
	clock := &manualNow{t: time.Now()}
	ui, err := webui.New(nil, e.tokens, e.store, webui.Options{SessionTTL: time.Hour, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ui)
	t.Cleanup(srv.Close)
	c, old := sessionCookie(t, e, srv.URL, e.admin)
	signedIn := func() bool { // the sign-in page sends a signed-in browser on
		res, err := c.Get(srv.URL + "/ui/login")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode == http.StatusSeeOther
	}
	if !signedIn() {
		t.Fatal("not signed in after signing in")
	}
	clock.add(time.Hour)
	if signedIn() {
		t.Error("the session outlived its TTL")
	}
	sessionCookie(t, e, srv.URL, e.admin)
	if _, err := e.store.SessionByHash(e.ctx, hashOf(old.Value)); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("the expired session after the next sign-in: %v, want deleted", err)
	}
}

// The cookie is Secure over TLS, and over plain HTTP when the dashboard is reached
// through an HTTPS proxy (SecureCookies: serve --public-url https://...).
func TestSecureCookie(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name   string
		tls    bool
		secure bool
		want   bool
	}{
		{"plain HTTP", false, false, false},
		{"behind an HTTPS proxy", false, true, true},
		{"TLS", true, false, true},
	} {
		ui, err := webui.New(nil, e.tokens, e.store, webui.Options{SecureCookies: tc.secure})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(ui)
		if tc.tls {
			srv.StartTLS()
		} else {
			srv.Start()
		}
		req, _ := http.NewRequest("POST", srv.URL+"/ui/login", strings.NewReader(url.Values{"token": {e.admin}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		client := srv.Client()
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		res, err := client.Do(req)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got := strings.Contains(res.Header.Get("Set-Cookie"), "Secure"); got != tc.want {
			t.Errorf("%s: cookie %q, Secure %t, want %t", tc.name, res.Header.Get("Set-Cookie"), got, tc.want)
		}
	}
}

// The one-line report an action leaves for the next page (the flash cookie) is Secure
// exactly when the session cookie is: over TLS, and over plain HTTP behind an HTTPS
// proxy (serve --public-url https://...); both when it is set and when it is cleared.
func TestFlashCookieIsSecureWhenTheSessionIs(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name        string
		tls, secure bool
		want        bool
	}{
		{"plain HTTP", false, false, false},
		{"behind an HTTPS proxy", false, true, true},
		{"TLS", true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ui, err := webui.New(e.server.Admin, e.tokens, e.store, webui.Options{SecureCookies: tc.secure})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewUnstartedServer(ui)
			if tc.tls {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			defer srv.Close()
			// No cookie jar: one would not send a Secure cookie back over plain HTTP,
			// which the proxy's browser does (it speaks HTTPS to the proxy).
			client := srv.Client()
			client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			send := func(method, path string, form url.Values, cookies ...*http.Cookie) *http.Response {
				t.Helper()
				req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(form.Encode()))
				if method == "POST" {
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					req.Header.Set("Origin", srv.URL)
				}
				for _, c := range cookies {
					req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
				}
				res, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { res.Body.Close() })
				return res
			}
			cookie := func(res *http.Response, name string) *http.Cookie {
				t.Helper()
				for _, c := range res.Cookies() {
					if c.Name == name {
						return c
					}
				}
				t.Fatalf("%s %s set no %s cookie (%d)", res.Request.Method, res.Request.URL.Path, name, res.StatusCode)
				return nil
			}
			session := cookie(send("POST", "/ui/login", url.Values{"token": {e.admin}}), "chronos_session")
			settings := send("GET", "/ui/settings", nil, session)
			body, _ := io.ReadAll(settings.Body)
			m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(body)
			if m == nil {
				t.Fatalf("no CSRF field on the settings page (%d)", settings.StatusCode)
			}
			for _, action := range []string{"pause", "resume"} {
				done := send("POST", "/ui/settings/dispatch/"+action, url.Values{"csrf": {string(m[1])}, "confirm": {"yes"}}, session)
				flash := cookie(done, "chronos_flash")
				if flash.Secure != tc.want {
					t.Errorf("%s: the flash cookie %q is Secure=%t, want %t", action, done.Header.Get("Set-Cookie"), flash.Secure, tc.want)
				}
				cleared := cookie(send("GET", "/ui/settings", nil, session, flash), "chronos_flash")
				if cleared.MaxAge >= 0 || cleared.Secure != tc.want {
					t.Errorf("%s: the flash cookie is cleared as %+v, want Secure=%t", action, cleared, tc.want)
				}
			}
		})
	}
}

// Failed sign-ins and forged session cookies are paced per client address (serve
// --auth-failure-limit): past the limit the sign-in page answers 429 with Retry-After
// and says why, before the token or the session is looked up.
func TestFailedSignInsArePacedPerAddress(t *testing.T) {
	for _, tc := range []struct {
		name string
		try  func(e *env, c *http.Client) answer
		want int // the status of a failed try within the limit
	}{
		{"a wrong token", func(e *env, c *http.Client) answer {
			return e.post(c, "/ui/login", url.Values{"token": {"chr_not_a_token"}})
		}, http.StatusUnauthorized},
		{"a forged session cookie", func(e *env, c *http.Client) answer {
			req, _ := http.NewRequestWithContext(e.ctx, "GET", e.srv.URL+"/ui/alarms", nil)
			req.AddCookie(&http.Cookie{Name: "chronos_session", Value: strings.Repeat("A", 43)})
			return e.do(c, req)
		}, http.StatusSeeOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testserver.New(t, testserver.Options{Dashboard: true, AuthFailuresPerMinute: 3})
			srv := httptest.NewServer(s.Handler)
			t.Cleanup(srv.Close)
			e := &env{t: t, ctx: t.Context(), srv: srv, server: s, store: s.Store, tokens: s.Tokens, ui: s.UI}
			c := e.browser()
			for i := range 3 {
				if res := tc.try(e, c); res.status != tc.want {
					t.Fatalf("try %d: %d, want %d", i+1, res.status, tc.want)
				}
			}
			res := tc.try(e, c)
			if res.status != http.StatusTooManyRequests || res.header.Get("Retry-After") == "" ||
				!strings.Contains(res.body, "Too many failed sign-ins from your address") {
				t.Errorf("past the limit: %d, Retry-After %q; want 429 with Retry-After, saying why:\n%s", res.status, res.header.Get("Retry-After"), res.body)
			}
		})
	}
}
