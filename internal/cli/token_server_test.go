package cli

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/testserver"
)

// tokenServer is a real API with an admin and an admin:read token, and the wiring of a
// store the API mode must never open.
type tokenServer struct {
	*testserver.Server
	url, admin, reader string
	tw                 *tokenWiring
	wiring             Wiring
}

func newTokenServer(t *testing.T) tokenServer {
	t.Helper()
	s := testserver.New(t, testserver.Options{})
	srv := httptest.NewServer(s.Handler)
	t.Cleanup(srv.Close)
	tw := &tokenWiring{}
	// No CHRONOS_* of the shell running the tests may choose for them.
	for _, name := range []string{"CHRONOS_SERVER", "CHRONOS_TOKEN", "CHRONOS_STORE", "CHRONOS_NO_MIGRATE"} {
		t.Setenv(name, "")
	}
	return tokenServer{Server: s, url: srv.URL, admin: s.Token(t, "ops", domain.ScopeAdmin),
		reader: s.Token(t, "ops", domain.ScopeAdminRead), tw: tw, wiring: tw.wiring(t)}
}

func (s tokenServer) run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := Token(t.Context(), args, s.wiring, &out, &errb)
	return out.String(), errb.String(), err
}

// `token create --server` issues over the API with the admin token of CHRONOS_TOKEN:
// the printed token works; list (table and -o json) and revoke go the same way, and
// the store of the machine running the command is never opened.
func TestTokenOverTheAPI(t *testing.T) {
	s := newTokenServer(t)
	t.Setenv("CHRONOS_TOKEN", s.admin)
	out, _, err := s.run(t, "create", "--server", s.url, "--owner", "billing", "--note", "billing service, prod")
	m := regexp.MustCompile(`^created token (\S+) for owner "billing" \(scope: owner\); it is shown once, store it now:\n(chr_\S+)\n$`).FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("create printed %q (%v)", out, err)
	}
	id, secret := m[1], m[2]
	if tok, err := s.Tokens.Authenticate(t.Context(), secret); err != nil || tok.ID != id || tok.Note != "billing service, prod" {
		t.Fatalf("the printed token: %+v, %v", tok, err)
	}

	out, _, err = s.run(t, "list", "--server", s.url, "--owner", "billing", "-o", "json")
	var list struct {
		Tokens []map[string]any `json:"tokens"`
	}
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || len(list.Tokens) != 1 {
		t.Fatalf("list -o json: %q (%v)", out, err)
	}
	got := list.Tokens[0]
	if got["id"] != id || got["note"] != "billing service, prod" || got["scope"] != "owner" || got["revoked_at"] != nil || strings.Contains(out, "chr_") {
		t.Errorf("list -o json: %s", out)
	}

	if out, _, err = s.run(t, "revoke", "--server", s.url, "--id", id); err != nil || out != "revoked token "+id+"\n" {
		t.Errorf("revoke printed %q (%v)", out, err)
	}
	out, _, err = s.run(t, "list", "--server", s.url)
	// Tokens made in the same millisecond list in id order: find the revoked one's line.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	revoked := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, id+" ") })
	if err != nil || len(lines) != 4 || revoked < 1 || strings.Fields(lines[revoked])[5] == "-" {
		t.Errorf("list after revoking:\n%s(%v)", out, err)
	}
	if _, _, err = s.run(t, "revoke", "--server", s.url, "--id", "tok_nope"); err == nil || !strings.Contains(err.Error(), `no token with id "tok_nope"`) {
		t.Errorf("revoking an unknown id: %v", err)
	}
	if len(s.tw.opened) != 0 {
		t.Errorf("the API mode opened a store %d times", len(s.tw.opened))
	}
}

// CHRONOS_SERVER alone picks the API, as --server does.
func TestTokenServerFromTheEnvironment(t *testing.T) {
	s := newTokenServer(t)
	t.Setenv("CHRONOS_SERVER", s.url)
	if out, _, err := s.run(t, "list", "--token", s.reader); err != nil || !strings.Contains(out, "LAST USED") {
		t.Errorf("list with CHRONOS_SERVER: %q (%v)", out, err)
	}
	if len(s.tw.opened) != 0 {
		t.Error("CHRONOS_SERVER set, but the command opened the store")
	}
}

// The API's refusals come back as it words them, with what to do.
func TestTokenOverTheAPIRefusals(t *testing.T) {
	s := newTokenServer(t)
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"create", "--server", s.url, "--owner", "x", "--token", s.reader}, nil, "read-only"},
		{[]string{"revoke", "--server", s.url, "--id", "tok_x", "--token", s.reader}, nil, "read-only"},
		{[]string{"create", "--server", s.url, "--owner", "x", "--note", strings.Repeat("n", 201), "--token", s.admin}, nil, "note: is longer than 200"},
		{[]string{"create", "--server", s.url, "--owner", "x"}, nil, "CHRONOS_TOKEN"},
		{[]string{"list", "--server", s.url, "--token", "chr_unknown"}, nil, "unauthenticated"},
		{[]string{"list", "--server", s.url, "--store", "sqlite://x.db", "--token", s.admin}, nil, "not both"},
		{[]string{"list", "--token", s.admin}, map[string]string{"CHRONOS_SERVER": s.url, "CHRONOS_STORE": "sqlite://x.db"}, "both set"},
		{[]string{"list", "--server", s.url, "--no-migrate", "--token", s.admin}, nil, "--no-migrate is for --store"},
		{[]string{"list", "--token", s.admin}, nil, "--token is for --server"},
		{[]string{"list", "-o", "yaml"}, nil, "-o must be table or json"},
	} {
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		if _, _, err := s.run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("token %v: %v; want %q", tc.args, err, tc.want)
		}
		for k := range tc.env {
			t.Setenv(k, "")
		}
	}
	if toks, _ := s.Tokens.List(t.Context(), "x"); len(toks) != 0 {
		t.Errorf("refused creates issued %d tokens", len(toks))
	}
}

// `token -h` and `token create -h` answer on stdout, and are no error.
func TestTokenHelp(t *testing.T) {
	s := newTokenServer(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-h"}, []string{"Usage: chronos token", "--server URL", "--store URL", "CHRONOS_TOKEN"}},
		{[]string{"help"}, []string{"Usage: chronos token"}},
		{[]string{"create", "-h"}, []string{"chronos token create", "--owner", "--admin", "--note", "--server", "--store"}},
		{[]string{"list", "--help"}, []string{"chronos token list", "--owner", "--o"}},
	} {
		out, errOut, err := s.run(t, tc.args...)
		if err != nil || errOut != "" {
			t.Errorf("token %v: error %v, stderr %q; want help on stdout alone", tc.args, err, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("token %v: stdout lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
}

// On the store, -o json has the API's shape too, and --note and list --owner work. A
// CHRONOS_TOKEN exported for the API does not get in the way.
func TestTokenOnTheStoreJSON(t *testing.T) {
	s := newTokenServer(t)
	t.Setenv("CHRONOS_TOKEN", s.admin)
	out, _, err := s.run(t, "create", "--owner", "ops", "--admin", "--note", "first admin", "-o", "json")
	var issued map[string]any
	if err != nil || json.Unmarshal([]byte(out), &issued) != nil || !strings.HasPrefix(issued["token"].(string), "chr_") ||
		issued["scope"] != "admin" || issued["note"] != "first admin" || issued["last_used_at"] != nil {
		t.Fatalf("create -o json: %q (%v)", out, err)
	}
	if _, err := time.Parse(time.RFC3339Nano, issued["created_at"].(string)); err != nil {
		t.Errorf("created_at: %v", err)
	}
	if _, _, err := s.run(t, "create", "--owner", "other"); err != nil {
		t.Fatal(err)
	}
	out, _, err = s.run(t, "list", "--owner", "ops", "-o", "json")
	var list struct {
		Tokens []map[string]any `json:"tokens"`
	}
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || len(list.Tokens) != 1 || list.Tokens[0]["id"] != issued["id"] || strings.Contains(out, "chr_") {
		t.Errorf("list --owner ops -o json: %q (%v)", out, err)
	}
}
