package cli

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/testserver"
)

// The endpoint commands against the real routes: an admin registers (secrets from the
// flags or a file), reads, lists, changes and deletes; no output shows a secret, only
// its size and SHA-256; the owner lists its own and names one in an alarm.
func TestCLIEndpointLifecycle(t *testing.T) {
	t.Parallel()
	srv := testserver.New(t, testserver.Options{})
	hs := httptest.NewServer(srv.Handler)
	t.Cleanup(hs.Close)
	admin := cliServer{url: hs.URL, token: srv.Token(t, "ops", domain.ScopeAdmin)}
	owner := cliServer{url: hs.URL, token: srv.Token(t, "alice", domain.ScopeOwner)}
	const one, two = "whsec_b25lLXNlY3JldC1vZi0yNC1ieXRlcy1hdC1sZWFzdA==", "second-secret-NOT-SHOWN-ever"
	noSecret := func(what, out string) {
		t.Helper()
		if strings.Contains(out, one) || strings.Contains(out, two) {
			t.Errorf("%s shows a secret:\n%s", what, out)
		}
	}
	sum := func(s string) string {
		fp, err := srv.Endpoints.Fingerprint(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		return fp
	}

	out := admin.mustCLI(t, "endpoint", "create", "--owner", "alice", "--name", "billing", "--url", "https://hooks.example.com/b",
		"--secret", one, "--secret", two, "--delivery-timeout", "1.5s", "--max-in-flight", "4", "--rate", "0.5")
	noSecret("create", out)
	for key, want := range map[string]string{
		"owner": "alice", "name": "billing", "url": "https://hooks.example.com/b", "timeout": "1.5s", "max_in_flight": "4",
		"rate_per_second": "0.5", "failure_url": "-", "secret 1": "50 bytes, fingerprint " + sum(one), "secret 2": "28 bytes, fingerprint " + sum(two),
	} {
		if got := value(t, out, key); got != want {
			t.Errorf("create: %s = %q, want %q", key, got, want)
		}
	}

	file := filepath.Join(t.TempDir(), "secrets")
	if err := os.WriteFile(file, []byte("\n"+two+"\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	admin.mustCLI(t, "endpoint", "create", "--owner", "bob", "--name", "alerts", "--url", "http://bob.example.com", "--secrets-file", file)
	list := admin.mustCLI(t, "endpoint", "list")
	noSecret("list", list)
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "OWNER ") || !strings.HasPrefix(lines[1], "alice ") || !strings.HasPrefix(lines[2], "bob ") {
		t.Errorf("list table:\n%s", list)
	}
	if got := admin.mustCLI(t, "endpoint", "list", "--owner", "bob"); strings.Contains(got, "billing") || !strings.Contains(got, "alerts") {
		t.Errorf("list --owner bob:\n%s", got)
	}

	out = admin.mustCLI(t, "endpoint", "update", "billing", "--owner", "alice", "--secret", two, "--delivery-timeout", "0", "--failure-url", "https://f.example.com")
	noSecret("update", out)
	if value(t, out, "timeout") != "the server's" || value(t, out, "failure_url") != "https://f.example.com" ||
		value(t, out, "max_in_flight") != "4" || value(t, out, "secret 1") != "28 bytes, fingerprint "+sum(two) || strings.Contains(out, "secret 2") {
		t.Errorf("update:\n%s", out)
	}
	got := admin.mustCLI(t, "endpoint", "get", "--owner", "alice", "billing", "--json")
	noSecret("get --json", got)
	var body struct {
		Endpoint struct {
			Name    string            `json:"name"`
			Secrets []json.RawMessage `json:"secrets"`
		} `json:"endpoint"`
	}
	if err := json.Unmarshal([]byte(got), &body); err != nil || body.Endpoint.Name != "billing" || len(body.Endpoint.Secrets) != 1 {
		t.Errorf("get --json printed %q (%v)", got, err)
	}

	mine := owner.mustCLI(t, "endpoint", "list", "--mine")
	if !strings.Contains(mine, "billing") || strings.Contains(mine, "alerts") {
		t.Errorf("list --mine:\n%s", mine)
	}
	alarm := owner.mustCLI(t, "alarm", "create", "--in", "1h", "--endpoint", "billing")
	if value(t, alarm, "endpoint") != "billing" {
		t.Errorf("alarm create --endpoint:\n%s", alarm)
	}
	if _, _, err := owner.cli(t, "alarm", "create", "--in", "1h", "--endpoint", "nope"); err == nil || !strings.Contains(err.Error(), "endpoint:") {
		t.Errorf("an alarm naming an unknown endpoint: %v, want the API's refusal naming endpoint", err)
	}
	if _, _, err := owner.cli(t, "endpoint", "list"); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("an owner listing every endpoint: %v, want forbidden", err)
	}

	if out := admin.mustCLI(t, "endpoint", "delete", "--owner", "alice", "billing"); !strings.Contains(out, "deleted endpoint billing of alice") {
		t.Errorf("delete: %s", out)
	}
	if _, _, err := admin.cli(t, "endpoint", "get", "--owner", "alice", "billing"); err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Errorf("get after delete: %v, want not_found", err)
	}
}

// Mistakes on the command line are refused before any request, saying what to give.
func TestCLIEndpointUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"create", "--name", "n", "--url", "https://x", "--secret", "s"}, "--owner"},
		{[]string{"create", "--owner", "o", "--url", "https://x", "--secret", "s"}, "--name"},
		{[]string{"create", "--owner", "o", "--name", "n", "--url", "https://x", "--secret", "s", "--secrets-file", "f"}, "not both"},
		{[]string{"get", "--owner", "o"}, "name"},
		{[]string{"get", "n"}, "--owner"},
		{[]string{"update", "--owner", "o", "n"}, "say what to change"},
		{[]string{"list", "--mine", "--owner", "o"}, "not both"},
		{[]string{"rename"}, "unknown subcommand"},
	} {
		_, _, err := runCLI(t, append(append([]string{"endpoint"}, c.args...), "--server", "http://127.0.0.1:1", "--token", "t")...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("endpoint %s: %v, want an error saying %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}

// Created without a secret, an endpoint gets one the server made, printed that once.
func TestCLIEndpointMadeSecret(t *testing.T) {
	t.Parallel()
	srv := testserver.New(t, testserver.Options{})
	hs := httptest.NewServer(srv.Handler)
	t.Cleanup(hs.Close)
	admin := cliServer{url: hs.URL, token: srv.Token(t, "ops", domain.ScopeAdmin)}
	out := admin.mustCLI(t, "endpoint", "create", "--owner", "alice", "--name", "billing", "--url", "https://hooks.example.com/b")
	made := strings.Fields(value(t, out, "made secret"))
	if len(made) == 0 || !strings.HasPrefix(made[0], "whsec_") {
		t.Fatalf("create without a secret:\n%s", out)
	}
	if got := admin.mustCLI(t, "endpoint", "get", "--owner", "alice", "billing"); strings.Contains(got, made[0]) {
		t.Errorf("get shows the made secret:\n%s", got)
	}
}
