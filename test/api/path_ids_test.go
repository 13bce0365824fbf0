package api_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/httpapi"
	"github.com/chronoshq/chronos/adapters/postgres"
	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/pgtest"
	"github.com/chronoshq/chronos/ports"
)

// An id, name or owner in a path that nothing can have (NUL, invalid UTF-8, a control
// character, 300 bytes) is answered before the store sees it, on every route that
// takes one, alike on every store: 404 in the route's own words for an id or a name
// (as for one that does not exist), 400 naming the field for an owner or the name a
// PUT would create; never a 500, and nothing logged as an error. PostgreSQL refuses NUL
// and invalid UTF-8 in text, so there such a request used to fail in the store.
func TestMalformedPathIDsNeverReachTheStore(t *testing.T) {
	t.Parallel()
	routes := httpapi.Routes(httpapi.Options{Admin: adminPresent{}, Endpoints: endpointsPresent{}, Tokens: tokensPresent{},
		Calendars: calendarsPresent{}, Redeliver: redeliverPresent{}})
	bad := []string{"a%00b", "%00", "%FF%FE", "a%C3", "a%0Ab", "a%7Fb", strings.Repeat("x", 300)}
	for kind, open := range textStores {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			h, token, logs := nodeOver(t, open(t))
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			tested := 0
			for _, r := range routes {
				if !strings.Contains(r.Template, "{") {
					continue
				}
				tested++
				body := pathIDBodies[r.Method+" "+r.Template]
				for i, v := range bad {
					for _, field := range []string{"id", "name", "owner"} {
						if !strings.Contains(r.Template, "{"+field+"}") {
							continue
						}
						good := strings.NewReplacer("{id}", "0190f0c0-0000-7000-8000-000000000001", "{name}", "billing", "{owner}", "alice")
						path := strings.NewReplacer("{"+field+"}", v).Replace(r.Template)
						path = good.Replace(path)
						t.Run(fmt.Sprintf("%s %s/%s %d", r.Method, r.Template, field, i), func(t *testing.T) {
							res := send(t, srv.URL, r.Method, path, body, token)
							status, code, named := http.StatusNotFound, "not_found", ""
							if field == "owner" || r.Method == http.MethodPut {
								status, code, named = http.StatusBadRequest, "invalid_argument", field
							}
							expectError(t, res, status, code, named)
						})
					}
				}
			}
			if tested < 20 {
				t.Errorf("only %d routes take an id, a name or an owner; the route list is not what the test expects", tested)
			}
			// The dashboard's alarm page, signed in with the admin token.
			jar, err := cookiejar.New(nil)
			if err != nil {
				t.Fatal(err)
			}
			browser := &http.Client{Jar: jar}
			login, err := browser.PostForm(srv.URL+"/ui/login", url.Values{"token": {token}})
			if err != nil {
				t.Fatal(err)
			}
			login.Body.Close()
			for _, v := range bad {
				res, err := browser.Get(srv.URL + "/ui/alarms/" + v)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != http.StatusNotFound || res.Request.URL.Path == "/ui/login" {
					t.Errorf("GET /ui/alarms/%s = %d (at %s), want 404", v, res.StatusCode, res.Request.URL.Path)
				}
			}
			for _, e := range logs.FilterLevelExact(zapcore.ErrorLevel).All() {
				t.Errorf("logged as an error: %s %v", e.Message, e.ContextMap())
			}
			for _, e := range logs.FilterMessageSnippet("failed").All() {
				t.Errorf("logged as a failure: %s %v", e.Message, e.ContextMap())
			}
		})
	}
}

// textStores are the stores whose text columns differ in what they refuse: SQLite
// stores any bytes, PostgreSQL refuses NUL and invalid UTF-8 with an error.
var textStores = map[string]func(t *testing.T) ports.Store{
	"sqlite": func(t *testing.T) ports.Store {
		s, err := sqlite.Open(t.Context(), "sqlite://"+filepath.Join(t.TempDir(), "ids.db"), sqlite.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	},
	"postgres": func(t *testing.T) ports.Store {
		base := os.Getenv("CHRONOS_TEST_POSTGRES_URL")
		if base == "" {
			base = "postgres://root@127.0.0.1:5432/postgres"
		}
		s, err := postgres.Open(t.Context(), pgtest.NewDatabase(t, base), postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	},
}

// pathIDBodies are bodies the routes' handlers accept, so that only the path can be
// refused.
var pathIDBodies = map[string]string{
	"PATCH /v1/alarms/{id}":                            `{"label":"renamed"}`,
	"POST /v1/alarms/{id}/pause":                       `{"note":"x"}`,
	"POST /v1/alarms/{id}/backfill":                    `{"from":"2025-01-06T00:00:00Z","to":"2025-01-07T00:00:00Z"}`,
	"PUT /v1/calendars/{name}":                         `{"timezone":"UTC"}`,
	"POST /admin/v1/owners/{owner}/endpoints":          `{"name":"fresh","url":"http://a.example.com","secrets":["test-secret-of-24-bytes-s"]}`,
	"PATCH /admin/v1/owners/{owner}/endpoints/{name}":  `{"max_in_flight":2}`,
	"DELETE /admin/v1/owners/{owner}/endpoints/{name}": ``,
}

// nodeOver serves the API of a node over s (no dispatcher, no background work) and
// returns its handler, an admin token and what it logs.
func nodeOver(t *testing.T, s ports.Store) (http.Handler, string, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	node, err := chronos.New(s, chronos.Config{Waker: refuseWakes{}, Logger: zap.New(core), Dashboard: true,
		Without: chronos.Without{Dispatcher: true, Background: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	plain, _, err := node.Tokens().Create(t.Context(), "ops", domain.ScopeAdmin)
	if err != nil {
		t.Fatal(err)
	}
	return node.Handler(), plain, logs
}

func send(t *testing.T, base, method, path, body, token string) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

type calendarsPresent struct{ httpapi.Calendars }

type redeliverPresent struct{ httpapi.Redeliverer }

type refuseWakes struct{}

func (refuseWakes) Wake(context.Context, domain.Wake) error {
	return errors.New("this node delivers no wake")
}
