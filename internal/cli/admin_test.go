package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// The /admin/v1 routes are served on another branch; the admin commands are tested
// against a fake that answers the spec's shapes (notes/admin-api-spec.md) and records
// what it was sent.

const cliAdminAlarm = `{"id":"a1","label":"nightly","kind":"once","fire_at":"2030-01-01T00:00:00Z","cron_expr":"",
"timezone":"","next_fire_at":null,"scheduled_for":"2030-01-01T00:00:00Z","conversation_id":"","wake_message":"",
"payload":null,"status":"failed","delivery":"at_least_once","idempotency_key":"","max_failures":5,"failure_count":5,
"last_error":"HTTP 500 from receiver","created_at":"2029-12-31T00:00:00Z","updated_at":"2030-01-01T00:00:09Z",
"last_fired_at":null,"owner":"alice","claimed_by":"","claimed_at":null,"redacted":true,"payload_size":4,
"payload_sha256":"74234e98","wake_message_size":0,"wake_message_sha256":"e3b0c442"}`

const cliDispatch = `{"paused":true,"since":"2030-01-01T00:00:00Z","by":"tok_ops","paused_seconds":61.2}`

const cliRun = `{"node":"n1","started_at":"2030-01-01T00:00:00Z","finished_at":"2030-01-01T00:00:01Z","alarms_deleted":7,"events_deleted":70,"error":""}`

var cliAdminAnswers = map[string]string{
	"GET /admin/v1/overview": `{"overview":{"counts":{"active":3,"paused":0,"fired":10,"cancelled":2,"failed":1},"total":16,
		"due_backlog":2,"oldest_due_at":"2030-01-01T00:00:00Z","oldest_due_lag_seconds":1.5,
		"wakes_last_minute":{"delivered":4,"failed":1},"wakes_last_hour":{"delivered":40,"failed":2},
		"live_workers":3,"queuing_endpoints":[{"owner":"alice","name":"billing","queued":4,"in_flight":8,"held_back":120}],
		"dispatch":` + cliDispatch + `,"now":"2030-01-01T00:00:01Z",
		"replica":{"available":true,"lag_seconds":0.25,"error":""}}}`,
	"GET /admin/v1/alarms":            `{"alarms":[` + cliAdminAlarm + `],"next_cursor":"c2"}`,
	"GET /admin/v1/alarms/a1":         `{"alarm":` + cliAdminAlarm + `}`,
	"GET /admin/v1/alarms/a1/events":  `{"events":[{"id":7,"type":"failed","at":"2030-01-01T00:00:09Z","attempt":5,"scheduled_for":"2030-01-01T00:00:00Z","occurrence_key":"a1/2030-01-01T00:00:00Z","worker":"w1","message":"HTTP 500"}]}`,
	"POST /admin/v1/alarms/a1/retry":  `{"alarm":` + strings.Replace(cliAdminAlarm, `"status":"failed"`, `"status":"active"`, 1) + `}`,
	"POST /admin/v1/alarms/a1/cancel": `{"alarm":` + strings.Replace(cliAdminAlarm, `"status":"failed"`, `"status":"cancelled"`, 1) + `}`,
	"DELETE /admin/v1/alarms/a1":      `{"deleted":{"alarms":1,"events":12}}`,
	"POST /admin/v1/alarms/retry":     `{"matched":10000,"changed":10000,"more":true,"next_cursor":"Y3Vyc29y"}`,
	"POST /admin/v1/alarms/cancel":    `{"matched":3,"changed":2,"more":false}`,
	"POST /admin/v1/alarms/delete":    `{"matched":5,"changed":5,"more":false}`,
	"GET /admin/v1/workers":           `{"workers":[{"id":"w1","host":"node-a","pid":4242,"version":"v0.9.0","started_at":"2030-01-01T00:00:00Z","heartbeat_at":"2030-01-01T00:00:01Z","heartbeat_age_seconds":0.4,"alive":true,"stats":{"in_flight":2,"claimed":100,"delivered":90,"failed":8,"stale":1,"delivered_1m":5,"failed_1m":1,"delivered_1h":60,"failed_1h":4}}]}`,
	"GET /admin/v1/dispatch":          `{"dispatch":` + cliDispatch + `}`,
	"POST /admin/v1/dispatch/pause":   `{"dispatch":` + cliDispatch + `}`,
	"POST /admin/v1/dispatch/resume":  `{"dispatch":{"paused":false,"since":null,"by":"","paused_seconds":0}}`,
	"GET /admin/v1/retention":         `{"retention":{"enabled":true,"retention_seconds":604800,"events_per_alarm":100,"last_run":` + cliRun + `}}`,
	"POST /admin/v1/retention/run":    `{"run":` + cliRun + `}`,
	"POST /admin/v1/store/backup":     `{"backup":{"file":"chronos-20300101T000000Z.db","bytes":18874368,"at":"2030-01-01T00:00:00Z","took_ms":412}}`,
}

// fakeAdminServer answers cliAdminAnswers and records the last request.
type fakeAdminServer struct {
	url string
	mu  sync.Mutex
	req struct{ method, path, query, auth, body, agent string }
}

func newFakeAdminServer(t *testing.T, status int, override string) *fakeAdminServer {
	t.Helper()
	f := &fakeAdminServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.req.method, f.req.path, f.req.query = r.Method, r.URL.EscapedPath(), r.URL.RawQuery
		f.req.auth, f.req.body, f.req.agent = r.Header.Get("Authorization"), string(body), r.UserAgent()
		f.mu.Unlock()
		answer, ok := cliAdminAnswers[r.Method+" "+r.URL.EscapedPath()]
		if override != "" {
			answer, ok = override, true
		}
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":{"code":"not_found","message":"no such route"}}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer+"\n")
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// last is the last request the fake was sent; zero when none.
func (f *fakeAdminServer) last() (r struct{ method, path, query, auth, body, agent string }) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.req
}

func TestCLIAdminCommands(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args   []string
		method string
		path   string
		query  string
		body   string // JSON; "" for none
		want   []string
	}{
		{[]string{"overview"}, "GET", "/admin/v1/overview", "", "",
			[]string{"active:", "failed:", "total:", "16", "oldest_due_lag:", "1.5s", "4 delivered, 1 failed", "dispatch_paused:", "dispatch_by:", "tok_ops",
				"queuing alice/billing:", "4 queued, 8 in flight, 120 held back", "replica_lag:", "250ms"}},
		{[]string{"alarms", "--owner", "alice", "--status", "failed", "--failed-since", "2030-01-01T00:00:00Z", "--limit", "5"},
			"GET", "/admin/v1/alarms", "failed_since=2030-01-01T00%3A00%3A00Z&limit=5&owner=alice&status=failed", "",
			[]string{"ID", "OWNER", "LAST ERROR", "a1", "alice", "failed", "5/5", "HTTP 500 from receiver"}},
		{[]string{"alarms", "--kind", "cron", "--label-prefix", "tmp-", "--cursor", "c1"},
			"GET", "/admin/v1/alarms", "cursor=c1&kind=cron&label_prefix=tmp-", "", []string{"a1"}},
		{[]string{"alarm", "a1"}, "GET", "/admin/v1/alarms/a1", "", "",
			[]string{"owner:", "alice", "redacted:", "true", "4 bytes, sha256 74234e98", "last_error:"}},
		{[]string{"events", "a1", "--limit", "3"}, "GET", "/admin/v1/alarms/a1/events", "limit=3", "",
			[]string{"TYPE", "failed", "w1", "HTTP 500"}},
		{[]string{"retry", "a1"}, "POST", "/admin/v1/alarms/a1/retry", "", "", []string{"status:", "active"}},
		{[]string{"cancel", "a1"}, "POST", "/admin/v1/alarms/a1/cancel", "", "", []string{"status:", "cancelled"}},
		{[]string{"delete", "a1"}, "DELETE", "/admin/v1/alarms/a1", "", "", []string{"deleted events:", "12"}},
		{[]string{"retry", "--failed-since", "2030-01-01T00:00:00Z"}, "POST", "/admin/v1/alarms/retry", "",
			`{"failed_since":"2030-01-01T00:00:00Z"}`, []string{"matched:", "10000", "more:", "the same command and --cursor Y3Vyc29y"}},
		{[]string{"retry", "--owner", "bob", "--cursor", "Y3Vyc29y"}, "POST", "/admin/v1/alarms/retry", "",
			`{"owner":"bob","cursor":"Y3Vyc29y"}`, []string{"matched:", "10000"}},
		{[]string{"cancel", "--owner", "bob", "--kind", "cron", "--limit", "50"}, "POST", "/admin/v1/alarms/cancel", "",
			`{"owner":"bob","kind":"cron","limit":50}`, []string{"matched:", "changed:", "2"}},
		{[]string{"delete", "--status", "cancelled", "--label-prefix", "tmp-"}, "POST", "/admin/v1/alarms/delete", "",
			`{"status":"cancelled","label_prefix":"tmp-"}`, []string{"changed:", "5"}},
		{[]string{"workers"}, "GET", "/admin/v1/workers", "", "",
			[]string{"HOST", "node-a", "4242", "v0.9.0", "true", "400ms", "5/60", "1/4"}},
		{[]string{"dispatch"}, "GET", "/admin/v1/dispatch", "", "", []string{"paused:", "true", "paused_for:", "1m1.2s"}},
		{[]string{"pause"}, "POST", "/admin/v1/dispatch/pause", "", "", []string{"by:", "tok_ops"}},
		{[]string{"resume"}, "POST", "/admin/v1/dispatch/resume", "", "", []string{"paused:", "false"}},
		{[]string{"retention"}, "GET", "/admin/v1/retention", "", "",
			[]string{"enabled:", "168h0m0s", "events_per_alarm:", "last_run.node:", "n1", "last_run.alarms_deleted:"}},
		{[]string{"retention", "--run"}, "POST", "/admin/v1/retention/run", "", "", []string{"events_deleted:", "70"}},
		{[]string{"backup"}, "POST", "/admin/v1/store/backup", "", "",
			[]string{"file:", "chronos-20300101T000000Z.db", "bytes:", "18874368", "took:", "412ms"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			f := newFakeAdminServer(t, http.StatusOK, "")
			args := append(append([]string{"admin"}, tc.args...), "--server", f.url, "--token", "chr_admin")
			out, stderr, err := runCLI(t, args...)
			if err != nil {
				t.Fatalf("%v (stderr %s)", err, stderr)
			}
			r := f.last()
			if r.method != tc.method || r.path != tc.path || r.query != tc.query || r.auth != "Bearer chr_admin" {
				t.Errorf("sent %s %s?%s auth %q; want %s %s?%s", r.method, r.path, r.query, r.auth, tc.method, tc.path, tc.query)
			}
			if r.agent != "chronos-cli/test" {
				t.Errorf("User-Agent %q; want chronos-cli/ and the Wiring's version", r.agent)
			}
			if !sameJSON(r.body, tc.body) {
				t.Errorf("sent body %q; want %q", r.body, tc.body)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			// --json prints the answer as the server sent it.
			jsonOut, _, err := runCLI(t, append(args, "--json")...)
			if want := cliAdminAnswers[tc.method+" "+tc.path] + "\n"; err != nil || jsonOut != want {
				t.Errorf("--json printed %q (%v); want the answer %q", jsonOut, err, want)
			}
		})
	}
}

func sameJSON(got, want string) bool {
	if want == "" {
		return got == ""
	}
	var g, w any
	if json.Unmarshal([]byte(got), &g) != nil || json.Unmarshal([]byte(want), &w) != nil {
		return false
	}
	return reflect.DeepEqual(g, w)
}

func TestCLIAdminErrors(t *testing.T) {
	t.Parallel()
	forbidden := newFakeAdminServer(t, http.StatusForbidden, `{"error":{"code":"forbidden","message":"this route needs the admin scope"}}`)
	_, _, err := runCLI(t, "admin", "overview", "--server", forbidden.url, "--token", "chr_owner")
	if err == nil || !strings.Contains(err.Error(), "forbidden (HTTP 403): this route needs the admin scope") ||
		!strings.Contains(err.Error(), "--admin") {
		t.Errorf("403: %v", err)
	}
	filter := newFakeAdminServer(t, http.StatusBadRequest, `{"error":{"code":"invalid","message":"give at least one filter","field":"filter"}}`)
	_, _, err = runCLI(t, "admin", "delete", "--owner", "x", "--server", filter.url, "--token", "chr_admin")
	if err == nil || !strings.Contains(err.Error(), "invalid (HTTP 400): filter: give at least one filter") {
		t.Errorf("400: %v", err)
	}
	pg := newFakeAdminServer(t, http.StatusNotImplemented, `{"error":{"code":"unsupported","message":"backups on request are for SQLite stores; back up PostgreSQL with pg_dump"}}`)
	_, _, err = runCLI(t, "admin", "backup", "--server", pg.url, "--token", "chr_admin")
	if err == nil || !strings.Contains(err.Error(), "unsupported (HTTP 501): backups on request are for SQLite stores") {
		t.Errorf("501: %v", err)
	}
	proxy := newFakeAdminServer(t, http.StatusBadGateway, `<html>bad gateway</html>`)
	_, _, err = runCLI(t, "admin", "workers", "--server", proxy.url, "--token", "chr_admin")
	if err == nil || !strings.Contains(err.Error(), "(HTTP 502): <html>bad gateway</html>") {
		t.Errorf("502: %v", err)
	}

	// Refused before any request: a bare bulk action, an id with a filter, a bad time.
	for _, args := range [][]string{
		{"delete"},
		{"retry", "--limit", "5"},
		{"cancel", "a1", "--owner", "bob"},
		{"retry", "a1", "a2"},
		{"retry", "--failed-since", "yesterday"},
		{"overview", "extra"},
		{"frobnicate"},
	} {
		f := newFakeAdminServer(t, http.StatusOK, "")
		_, _, err := runCLI(t, append(append([]string{"admin"}, args...), "--server", f.url, "--token", "chr_admin")...)
		if err == nil {
			t.Errorf("admin %v: no error", args)
		}
		if r := f.last(); r.method != "" {
			t.Errorf("admin %v: sent %s %s", args, r.method, r.path)
		}
	}
}
