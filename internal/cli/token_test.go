package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/ports"
)

// tokenWiring opens SQLite stores, and counts the opens and whether each migrated.
type tokenWiring struct {
	opened []bool
}

func (w *tokenWiring) wiring(t *testing.T) Wiring {
	return Wiring{
		DefaultStore: "sqlite://" + filepath.Join(t.TempDir(), "default.db"),
		Open: func(ctx context.Context, url string, migrate bool) (ports.Store, error) {
			w.opened = append(w.opened, migrate)
			return sqlite.Open(ctx, url, sqlite.Options{Migrate: migrate})
		},
	}
}

func runToken(t *testing.T, wiring Wiring, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := Token(t.Context(), args, wiring, &out, &errb)
	return out.String(), err
}

func TestTokenCreateListRevoke(t *testing.T) {
	var tw tokenWiring
	wiring := tw.wiring(t)
	created := regexp.MustCompile(`^created token (\S+) for owner "(\w+)" \(scope: ([\w:]+)\); it is shown once, store it now:\n(\S+)\n$`)
	ids := map[string]string{}
	for _, tc := range []struct {
		args  []string
		owner string
		scope string
	}{
		{[]string{"--owner", "alice"}, "alice", "owner"},
		{[]string{"--owner", "ops", "--admin"}, "ops", "admin"},
		{[]string{"--admin", "read", "--owner", "viewer"}, "viewer", "admin:read"},
		{[]string{"--owner", "viewer2", "--admin=read"}, "viewer2", "admin:read"},
	} {
		out, err := runToken(t, wiring, append([]string{"create"}, tc.args...)...)
		m := created.FindStringSubmatch(out)
		if err != nil || m == nil || m[2] != tc.owner || m[3] != tc.scope || m[4] == "" {
			t.Fatalf("create %v printed %q (%v); want a %s token for %s", tc.args, out, err, tc.scope, tc.owner)
		}
		ids[tc.owner] = m[1]
	}
	// Every command opened the default store, migrating it.
	if len(tw.opened) != 4 || slices.Contains(tw.opened, false) {
		t.Errorf("opens (migrate?) %v; want four, each migrating", tw.opened)
	}

	if out, err := runToken(t, wiring, "revoke", "--id", ids["ops"]); err != nil || out != "revoked token "+ids["ops"]+"\n" {
		t.Errorf("revoke printed %q (%v)", out, err)
	}
	list, err := runToken(t, wiring, "list", "--no-migrate")
	if err != nil {
		t.Fatal(err)
	}
	if tw.opened[len(tw.opened)-1] {
		t.Error("list --no-migrate migrated the store")
	}
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 5 || strings.Join(strings.Fields(lines[0]), " ") != "ID OWNER SCOPE CREATED LAST USED REVOKED NOTE" {
		t.Fatalf("list:\n%s", list)
	}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if revoked := f[5] != "-"; revoked != (f[1] == "ops") || ids[f[1]] != f[0] || f[4] != "-" {
			t.Errorf("list row %q: wrong id, or revoked when it was not (or not when it was)", line)
		}
	}
}

func TestTokenRefusals(t *testing.T) {
	var tw tokenWiring
	wiring := tw.wiring(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "give a subcommand"},
		{[]string{"rotate"}, `unknown subcommand "rotate"`},
		{[]string{"create"}, "--owner is required"},
		{[]string{"create", "--owner", "a", "--admin=everything"}, "--admin read"},
		{[]string{"revoke"}, "--id is required"},
		{[]string{"revoke", "--id", "tok_nope"}, `no token with id "tok_nope"`},
		{[]string{"list", "extra"}, `unexpected argument "extra"`},
	} {
		if _, err := runToken(t, wiring, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("token %v: %v; want %q", tc.args, err, tc.want)
		}
	}
	if len(tw.opened) != 1 {
		t.Errorf("%d stores opened; only revoke of an unknown id gets that far", len(tw.opened))
	}
}
