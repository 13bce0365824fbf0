package api_test

import (
	"fmt"
	"github.com/chronoshq/chronos/ports"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/httpapi"
	"github.com/chronoshq/chronos/domain"
)

// access is who a route lets through.
type access int

const (
	public      access = iota // anyone, without a token
	owner                     // any valid token, acting as its owner
	ownerByID                 // any valid token; another owner's {id} is a 404
	adminRead                 // admin and admin:read tokens; owner tokens 403
	adminChange               // admin tokens only; admin:read and owner tokens 403
)

// routeAccess is the auth matrix's table: every route the router serves (the test fails
// on a route missing here, and on an entry the router does not serve), with who may use
// it and a body good enough to pass decoding. In paths, {id} is an alarm of alice's (a
// token of its own in /admin/v1/tokens/{id}), {owner} is alice and {name} one of her
// endpoints.
var routeAccess = map[string]struct { // "METHOD template"
	access access
	body   string
}{
	"GET /healthz":      {public, ""},
	"GET /readyz":       {public, ""},
	"GET /openapi.json": {public, ""},

	"POST /v1/alarms":               {owner, onceIn60s},
	"GET /v1/alarms":                {owner, ""},
	"POST /v1/alarms/batch":         {owner, `{"alarms":[` + onceIn60s + `]}`},
	"POST /v1/alarms/bulk":          {owner, `{"filter":{"tag":["matrix:1"]},"action":"pause","dry_run":true}`},
	"POST /v1/schedules/preview":    {owner, `{"cron_expr":"@daily","count":2}`},
	"GET /v1/endpoints":             {owner, ""},
	"GET /v1/alarms/{id}":           {ownerByID, ""},
	"DELETE /v1/alarms/{id}":        {ownerByID, ""},
	"PATCH /v1/alarms/{id}":         {ownerByID, `{"label":"renamed"}`},
	"POST /v1/alarms/{id}/pause":    {ownerByID, `{"note":"matrix"}`},
	"POST /v1/alarms/{id}/resume":   {ownerByID, ""},
	"POST /v1/alarms/{id}/trigger":  {ownerByID, ""},
	"POST /v1/alarms/{id}/skip":     {ownerByID, ""},
	"GET /v1/alarms/{id}/upcoming":  {ownerByID, ""},
	"POST /v1/alarms/{id}/backfill": {ownerByID, `{"from":"2025-01-06T00:00:00Z","to":"2025-01-07T00:00:00Z"}`},
	"GET /v1/alarms/{id}/events":    {ownerByID, ""},
	"GET /v1/alarms/{id}/attempts":  {ownerByID, ""},

	"GET /admin/v1/overview":                           {adminRead, ""},
	"GET /admin/v1/readyz":                             {adminRead, ""},
	"GET /admin/v1/alarms":                             {adminRead, ""},
	"GET /admin/v1/alarms/{id}":                        {adminRead, ""},
	"GET /admin/v1/alarms/{id}/events":                 {adminRead, ""},
	"GET /admin/v1/alarms/{id}/attempts":               {adminRead, ""},
	"GET /admin/v1/workers":                            {adminRead, ""},
	"GET /admin/v1/dispatch":                           {adminRead, ""},
	"GET /admin/v1/retention":                          {adminRead, ""},
	"GET /admin/v1/endpoints":                          {adminRead, ""},
	"GET /admin/v1/owners/{owner}/endpoints":           {adminRead, ""},
	"GET /admin/v1/owners/{owner}/endpoints/{name}":    {adminRead, ""},
	"POST /admin/v1/alarms/retry":                      {adminChange, `{"owner":"nobody"}`},
	"POST /admin/v1/alarms/cancel":                     {adminChange, `{"owner":"nobody"}`},
	"POST /admin/v1/alarms/delete":                     {adminChange, `{"owner":"nobody"}`},
	"DELETE /admin/v1/alarms/{id}":                     {adminChange, ""},
	"POST /admin/v1/alarms/{id}/retry":                 {adminChange, ""},
	"POST /admin/v1/alarms/{id}/cancel":                {adminChange, ""},
	"POST /admin/v1/dispatch/pause":                    {adminChange, ""},
	"POST /admin/v1/dispatch/resume":                   {adminChange, ""},
	"POST /admin/v1/retention/run":                     {adminChange, ""},
	"POST /admin/v1/store/backup":                      {adminChange, ""},
	"POST /admin/v1/owners/{owner}/endpoints":          {adminChange, `{"name":"fresh","url":"http://a.example.com","secrets":["test-secret-of-24-bytes-s"]}`},
	"PATCH /admin/v1/owners/{owner}/endpoints/{name}":  {adminChange, `{"max_in_flight":2}`},
	"DELETE /admin/v1/owners/{owner}/endpoints/{name}": {adminChange, ""},
	"GET /admin/v1/tokens":                             {adminRead, ""},
	"POST /admin/v1/tokens":                            {adminChange, `{"owner":"matrix","scope":"admin"}`},
	"DELETE /admin/v1/tokens/{id}":                     {adminChange, ""},
}

// TestAuthMatrix sends every route of the router as every kind of caller and checks
// the auth outcome: 401 without a valid token, 403 for a token without the scope, 404
// for another owner's alarm, and otherwise neither 401 nor 403 (nor 404 for a route
// naming the caller's alarm). A refused request changes nothing: alice's alarm reads
// the same from the store before and after.
func TestAuthMatrix(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	revoked, tok, err := e.tokens.Create(e.ctx, "alice", domain.ScopeOwner)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.tokens.Revoke(e.ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	served := httpapi.Routes(httpapi.Options{Admin: adminPresent{}, Endpoints: endpointsPresent{}, Tokens: tokensPresent{}})
	for _, r := range served {
		if _, ok := routeAccess[r.Method+" "+r.Template]; !ok {
			t.Errorf("route %s %s is not in the auth matrix's table: add it with who may use it", r.Method, r.Template)
		}
	}
	for r := range routeAccess {
		method, template, _ := strings.Cut(r, " ")
		if !slices.Contains(served, httpapi.Route{Method: method, Template: template}) {
			t.Errorf("the auth matrix lists %s, which the router does not serve", r)
		}
	}

	type caller struct {
		name, authorization string
		valid               bool // a token the API knows
		isAlice             bool // the owner of the alarm in {id}
		scope               domain.Scope
	}
	callers := []caller{
		{name: "no header"},
		{name: "malformed header", authorization: "Basic YWxpY2U6c2VjcmV0"},
		{name: "unknown token", authorization: "Bearer chr_notarealtokenatall"},
		{name: "revoked token", authorization: "Bearer " + revoked},
		{"owner A", "Bearer " + e.alice, true, true, domain.ScopeOwner},
		{"owner B", "Bearer " + e.bob, true, false, domain.ScopeOwner},
		{"admin:read", "Bearer " + e.reader, true, false, domain.ScopeAdminRead},
		{"admin", "Bearer " + e.ops, true, false, domain.ScopeAdmin},
	}
	n := 0
	for _, r := range served {
		spec := routeAccess[r.Method+" "+r.Template]
		for _, c := range callers {
			n++
			t.Run(r.Method+" "+r.Template+"/"+c.name, func(t *testing.T) {
				// Each case gets its own alarm and endpoint: an allowed DELETE must not
				// change what the next case finds.
				a := e.create(e.alice, weekdays)
				endpoint := fmt.Sprintf("matrix-%d", n)
				if res := e.as(e.ops, "POST", "/admin/v1/owners/alice/endpoints",
					`{"name":"`+endpoint+`","url":"http://a.example.com","secrets":["test-secret-of-24-bytes-s"]}`); res.status != http.StatusCreated {
					t.Fatalf("registering endpoint %s: %d %s", endpoint, res.status, res.body)
				}
				id := a.ID
				victim, victimID := e.newScopedToken("matrix-victim", domain.ScopeOwner)
				if strings.HasPrefix(r.Template, "/admin/v1/tokens/") {
					id = victimID
				}
				path := strings.NewReplacer("{id}", id, "{owner}", "alice", "{name}", endpoint).Replace(r.Template)
				before, err := e.store.Get(e.ctx, ports.OwnedBy("alice"), a.ID)
				if err != nil {
					t.Fatal(err)
				}
				issued, err := e.tokens.List(e.ctx, "matrix")
				if err != nil {
					t.Fatal(err)
				}

				h := map[string]string{}
				if c.authorization != "" {
					h["Authorization"] = c.authorization
				}
				if spec.body != "" {
					h["Content-Type"] = "application/json"
				}
				res := e.request(r.Method, path, spec.body, h)

				want := 0 // 0: neither 401 nor 403
				switch {
				case spec.access == public:
				case !c.valid:
					want = http.StatusUnauthorized
				case spec.access == adminRead && c.scope == domain.ScopeOwner,
					spec.access == adminChange && c.scope != domain.ScopeAdmin:
					want = http.StatusForbidden
				case spec.access == ownerByID && !c.isAlice:
					want = http.StatusNotFound
				}
				switch want {
				case 0:
					if res.status == http.StatusUnauthorized || res.status == http.StatusForbidden ||
						res.status >= 500 || (spec.access == ownerByID || strings.Contains(r.Template, "{")) && res.status == http.StatusNotFound {
						t.Errorf("%s %s as %s: %d %s; want it let through", r.Method, path, c.name, res.status, res.body)
					}
					return
				case http.StatusUnauthorized:
					expectError(t, res, want, "unauthenticated", "")
				case http.StatusForbidden:
					expectError(t, res, want, "forbidden", "")
				case http.StatusNotFound:
					expectError(t, res, want, "not_found", "")
				}
				after, err := e.store.Get(e.ctx, ports.OwnedBy("alice"), a.ID)
				if err != nil {
					t.Fatalf("alice's alarm after a refused %s %s: %v", r.Method, path, err)
				}
				if after.Status != before.Status || !after.UpdatedAt.Equal(before.UpdatedAt) {
					t.Errorf("a refused %s %s as %s changed alice's alarm: %s/%s → %s/%s", r.Method, path, c.name,
						before.Status, before.UpdatedAt, after.Status, after.UpdatedAt)
				}
				if _, err := e.tokens.Authenticate(e.ctx, victim); err != nil {
					t.Errorf("a refused %s %s as %s revoked a token: %v", r.Method, path, c.name, err)
				}
				if toks, err := e.tokens.List(e.ctx, "matrix"); err != nil || len(toks) != len(issued) {
					t.Errorf("a refused %s %s as %s issued a token: %d tokens, %d before (%v)", r.Method, path, c.name, len(toks), len(issued), err)
				}
			})
		}
	}
}

// adminPresent, endpointsPresent and tokensPresent only make httpapi.Routes list the
// admin, endpoint and token routes, as the test server serves them; Routes calls no use
// case.
type adminPresent struct{ httpapi.Admin }

type endpointsPresent struct{ httpapi.Endpoints }

type tokensPresent struct{ httpapi.Tokens }
