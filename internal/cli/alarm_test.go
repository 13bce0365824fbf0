package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/testserver"
)

// cliServer is the real /v1 API over SQLite in a temporary directory (as test/api
// builds it) and a token for it.
type cliServer struct {
	url    string
	token  string
	server *testserver.Server // for what only a dispatcher does (Fail)
	store  *sqlite.Store      // the server's, for what only a dispatcher writes
}

func newCLIServer(t *testing.T) cliServer {
	t.Helper()
	return newCLIServerWith(t, testserver.Options{})
}

// newCLIServerWith is newCLIServer with the server's options.
func newCLIServerWith(t *testing.T, opts testserver.Options) cliServer {
	t.Helper()
	s := testserver.New(t, opts)
	srv := httptest.NewServer(s.Handler)
	t.Cleanup(srv.Close)
	return cliServer{url: srv.URL, token: s.Token(t, "alice", domain.ScopeOwner), server: s, store: s.Store}
}

// cli runs `chronos args...` in process against the server, as the test's token.
func (s cliServer) cli(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runCLI(t, append(args, "--server", s.url, "--token", s.token)...)
}

// runCLI runs `chronos args...` as cmd/chronos dispatches it: args[0] is the command.
func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := map[string]func(context.Context, []string, Wiring, io.Writer, io.Writer) error{
		"alarm": Alarm, "admin": Admin, "endpoint": Endpoint, "calendar": Calendar,
	}[args[0]]
	if cmd == nil {
		t.Fatalf("runCLI: no command %q", args[0])
	}
	err := cmd(t.Context(), args[1:], Wiring{Version: "test"}, &out, &errb)
	return out.String(), errb.String(), err
}

// mustCLI runs the command and fails the test on an error.
func (s cliServer) mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, err := s.cli(t, args...)
	if err != nil {
		t.Fatalf("chronos %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr)
	}
	return out
}

// value reads "key: value" from a listing.
func value(t *testing.T, listing, key string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `:[ \t]*(.*?)[ \t]*$`).FindStringSubmatch(listing)
	if m == nil {
		t.Fatalf("no %q in:\n%s", key, listing)
	}
	return m[1]
}

func TestCLIAlarmCreateGetListTable(t *testing.T) {
	t.Parallel()
	s := newCLIServer(t)
	out := s.mustCLI(t, "alarm", "create", "--in", "10m", "--label", "tea time", "--payload", `{"cups": 2}`,
		"--wake-message", "brew", "--conversation", "c-1")
	id := value(t, out, "id")
	for key, want := range map[string]string{
		"label": "tea time", "kind": "once", "status": "active", "payload": `{"cups": 2}`,
		"wake_message": "brew", "conversation_id": "c-1", "delivery": "at_least_once", "deduped": "false",
	} {
		if got := value(t, out, key); got != want {
			t.Errorf("create: %s = %q, want %q", key, got, want)
		}
	}
	fireAt, err := time.Parse(time.RFC3339, value(t, out, "fire_at"))
	if err != nil || fireAt.Before(time.Now().Add(9*time.Minute)) || fireAt.After(time.Now().Add(11*time.Minute)) {
		t.Errorf("fire_at %v (%v), want about ten minutes from now", fireAt, err)
	}

	// Flags may follow the id.
	got := s.mustCLI(t, "alarm", "get", id)
	if value(t, got, "id") != id || value(t, got, "label") != "tea time" {
		t.Errorf("get:\n%s", got)
	}

	list := s.mustCLI(t, "alarm", "list", "--status", "active")
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") || !strings.Contains(lines[0], "NEXT FIRE") ||
		!strings.HasPrefix(lines[1], id+" ") || !strings.Contains(lines[1], "tea time") || !strings.Contains(lines[1], "active") {
		t.Errorf("list table:\n%s", list)
	}
}

func TestCLIAlarmJSONIsTheAPIsAnswer(t *testing.T) {
	t.Parallel()
	s := newCLIServer(t)
	out := s.mustCLI(t, "alarm", "create", "--json", "--in", "1h", "--payload", `{ "spaced" : true }`)
	var created struct {
		Alarm struct {
			ID      string          `json:"id"`
			Payload json.RawMessage `json:"payload"`
		} `json:"alarm"`
		Deduped bool `json:"deduped"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Alarm.ID == "" {
		t.Fatalf("create --json printed %q: %v", out, err)
	}
	if string(created.Alarm.Payload) != `{ "spaced" : true }` {
		t.Errorf("payload %s: not the bytes sent", created.Alarm.Payload)
	}
	get := s.mustCLI(t, "alarm", "get", created.Alarm.ID, "--json")
	if !strings.HasPrefix(get, `{"alarm":{"id":"`+created.Alarm.ID+`"`) || !strings.HasSuffix(get, "}\n") {
		t.Errorf("get --json printed %q", get)
	}
	list := s.mustCLI(t, "alarm", "list", "--json", "--limit", "1")
	var page struct {
		Alarms     []map[string]any `json:"alarms"`
		NextCursor *string          `json:"next_cursor"`
	}
	if err := json.Unmarshal([]byte(list), &page); err != nil || len(page.Alarms) != 1 || page.NextCursor == nil {
		t.Errorf("list --json printed %q: %v", list, err)
	}
}

func TestCLIAlarmCronActionsAndEvents(t *testing.T) {
	t.Parallel()
	s := newCLIServer(t)
	out := s.mustCLI(t, "alarm", "create", "--cron", "0 9 * * 1-5", "--tz", "Europe/Paris", "--at-most-once", "--max-failures", "3")
	id := value(t, out, "id")
	if value(t, out, "kind") != "cron" || value(t, out, "timezone") != "Europe/Paris" ||
		value(t, out, "delivery") != "at_most_once" || value(t, out, "failure_count") != "0 of max_failures 3" {
		t.Errorf("create:\n%s", out)
	}
	for _, step := range []struct{ action, status string }{
		{"pause", "paused"}, {"resume", "active"}, {"trigger", "active"}, {"cancel", "cancelled"},
	} {
		out := s.mustCLI(t, "alarm", step.action, id)
		if got := value(t, out, "status"); got != step.status {
			t.Errorf("%s: status %q, want %q", step.action, got, step.status)
		}
	}
	events := s.mustCLI(t, "alarm", "events", id)
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(events), "\n")[1:] {
		types = append(types, strings.Fields(line)[2])
	}
	if strings.Join(types, " ") != "created paused resumed triggered cancelled" {
		t.Errorf("events table:\n%s", events)
	}
	if two := s.mustCLI(t, "alarm", "events", "--limit", "2", id); strings.Count(two, "\n") != 3 {
		t.Errorf("events --limit 2:\n%s", two)
	}
}

func TestCLIAlarmCreateFromFileIsIdempotent(t *testing.T) {
	t.Parallel()
	s := newCLIServer(t)
	file := filepath.Join(t.TempDir(), "payload.json")
	if err := os.WriteFile(file, []byte(`[1, 2, 3]`), 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	args := []string{"alarm", "create", "--at", at, "--payload-file", file, "--idempotency-key", "k-1"}
	first := s.mustCLI(t, args...)
	again := s.mustCLI(t, args...)
	if value(t, first, "deduped") != "false" || value(t, again, "deduped") != "true" ||
		value(t, first, "id") != value(t, again, "id") || value(t, first, "fire_at") != at || value(t, first, "payload") != "[1, 2, 3]" {
		t.Errorf("first:\n%s\nagain:\n%s", first, again)
	}
}

// TestCLIAlarmErrorsCarryTheAPIsMessage checks the exit error of each kind of refusal:
// the API's code, status, field and message, and a hint where one helps.
func TestCLIAlarmErrorsCarryTheAPIsMessage(t *testing.T) {
	t.Parallel()
	s := newCLIServer(t)
	once := value(t, s.mustCLI(t, "alarm", "create", "--in", "1h"), "id")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown id", []string{"alarm", "get", "no-such-alarm"}, []string{"not_found (HTTP 404): no such alarm"}},
		{"bad cron", []string{"alarm", "create", "--cron", "every tuesday"}, []string{"invalid_argument (HTTP 400): cron_expr: "}},
		{"bad limit", []string{"alarm", "list", "--limit", "9999"}, []string{"invalid_argument (HTTP 400): limit: must be"}},
		{"pausing a once alarm", []string{"alarm", "pause", once}, []string{"invalid_state (HTTP 409): "}},
	}
	for _, tc := range cases {
		out, _, err := s.cli(t, tc.args...)
		if err == nil {
			t.Errorf("%s: no error; printed %q", tc.name, out)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
		if out != "" {
			t.Errorf("%s: printed %q on stdout besides the error", tc.name, out)
		}
	}
	_, _, err := runCLI(t, "alarm", "list", "--server", s.url, "--token", "chr_wrong")
	if err == nil || !strings.Contains(err.Error(), "unauthenticated (HTTP 401)") || !strings.Contains(err.Error(), "chronos token create") {
		t.Errorf("wrong token: %v", err)
	}
}

func TestCLIAlarmWithoutTokenSaysHowToGetOne(t *testing.T) {
	t.Setenv("CHRONOS_TOKEN", "")
	_, _, err := runCLI(t, "alarm", "list", "--server", "http://127.0.0.1:1")
	if err == nil || !strings.Contains(err.Error(), "chronos token create --owner") {
		t.Errorf("got %v; want the way to make a token", err)
	}
}

func TestCLIAlarmServerAndTokenFromEnvironment(t *testing.T) {
	s := newCLIServer(t)
	t.Setenv("CHRONOS_SERVER", s.url)
	t.Setenv("CHRONOS_TOKEN", s.token)
	if _, _, err := runCLI(t, "alarm", "list"); err != nil {
		t.Errorf("alarm list from the environment: %v", err)
	}
}

func TestCLIAlarmCreateRefusesBadFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "say when"},
		{[]string{"--in", "1m", "--cron", "@hourly"}, "only one of"},
		{[]string{"--in", "-1m"}, "must not be negative"},
		{[]string{"--at", "tomorrow"}, "RFC 3339"},
		{[]string{"--in", "1m", "--payload", "{nope"}, "not valid JSON"},
		{[]string{"--in", "1m", "--payload", "1", "--payload-file", "x"}, "not both"},
		{[]string{"--in", "1m", "--max-failures", "0"}, "at least 1"},
		{[]string{"--in", "1m", "extra"}, "unexpected argument"},
	} {
		// No server listens there: each refusal must come before any request.
		args := append([]string{"alarm", "create", "--server", "http://127.0.0.1:1", "--token", "chr_x"}, tc.args...)
		if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want %q", tc.args, err, tc.want)
		}
	}
	for _, args := range [][]string{{"alarm", "get"}, {"alarm", "get", "a", "b"}, {"alarm", "frobnicate"}, {"alarm"}} {
		if _, _, err := runCLI(t, append(args, "--token", "chr_x")...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
