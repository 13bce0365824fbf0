package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/testserver"
)

// Bounds of a fuzz input; a longer one is skipped, not truncated, so the corpus stays
// what it says. The bodies stay under the API's own limit on purpose: its 413 is tested
// elsewhere, and large bodies only slow the fuzzer down.
const (
	fuzzMaxLine = 2048      // method, path, query, headers
	fuzzMaxBody = 64 * 1024 // body
)

// fuzzSeeds are requests of the API tests, valid and not. In paths, $A is a cron alarm
// of alice's, $O a once alarm of hers, $B an alarm of bob's; alice has the endpoint
// "billing". who picks the token (fuzzWho); headers are "Name: value" lines.
var fuzzSeeds = []struct {
	method, path, query string
	who                 byte
	headers             string
	body                string
}{
	{"GET", "/healthz", "", 0, "", ""},
	{"GET", "/readyz", "", 0, "", ""},
	{"GET", "/openapi.json", "", 0, "", ""},
	{"POST", "/v1/alarms", "", 1, "Content-Type: application/json", onceIn60s},
	{"POST", "/v1/alarms", "", 1, "Content-Type: application/json", `{"label":"tea","kind":"once","fire_at":"2030-01-01T00:00:00Z","payload":{"a":[1,2]},"wake_message":"hi","idempotency_key":"k1","max_failures":3,"delivery":"at_most_once","endpoint":"billing"}`},
	{"POST", "/v1/alarms", "", 1, "Content-Type: application/json", weekdays},
	{"POST", "/v1/alarms", "", 1, "Content-Type: application/json", `{"kind":"cron","cron_expr":"0 9 * * *","timezone":"Europe/Berlin","misfire":"catch_up","catch_up_limit":5,"catch_up_window":"36h","max_consecutive_skips":3,"start_at":"2030-01-01T00:00:00Z","end_at":"2030-02-01T00:00:00Z","max_fires":10,"jitter_seconds":120}`},
	{"POST", "/v1/alarms", "", 1, "Content-Type: application/json", `{not json`},
	{"POST", "/v1/alarms/batch", "", 2, "Content-Type: application/json", `{"alarms":[` + onceIn60s + `,` + weekdays + `,{"kind":"once"}]}`},
	{"GET", "/v1/alarms", "limit=2&status=scheduled&kind=cron&label_prefix=t&cursor=abc", 1, "", ""},
	{"GET", "/v1/alarms", "limit=99999999999999999999", 1, "", ""},
	{"GET", "/v1/alarms/$A", "", 1, "", ""},
	{"DELETE", "/v1/alarms/$O", "", 1, "", ""},
	{"PATCH", "/v1/alarms/$A", "", 1, "Content-Type: application/json", `{"cron_expr":"*/5 * * * *","max_fires":3,"end_at":null,"label":"x","payload":{"v":2}}`},
	{"POST", "/v1/alarms/$A/pause", "", 1, "Content-Type: application/json", `{"until":"2030-01-01T00:00:00Z","note":"office closed"}`},
	{"POST", "/v1/alarms/$A/pause", "", 1, "", ""},
	{"POST", "/v1/alarms/$A/resume", "", 1, "", ""},
	{"POST", "/v1/alarms/$O/trigger", "", 1, "", ""},
	{"POST", "/v1/alarms/$A/skip", "", 1, "", ""},
	{"GET", "/v1/alarms/$A/upcoming", "count=3", 1, "", ""},
	{"POST", "/v1/alarms/$A/backfill", "", 1, "Content-Type: application/json", `{"from":"2025-01-06T00:00:00Z","to":"2025-01-10T00:00:00Z"}`},
	{"GET", "/v1/alarms/$A/events", "limit=2", 1, "", ""},
	{"GET", "/v1/alarms/$B", "", 1, "", ""},
	{"POST", "/v1/schedules/preview", "", 1, "Content-Type: application/json", `{"cron_expr":"0 9 * * 1-5","timezone":"America/New_York","from":"2025-03-07T00:00:00Z","count":3}`},
	{"GET", "/v1/endpoints", "", 1, "", ""},
	{"GET", "/admin/v1/overview", "", 3, "", ""},
	{"GET", "/admin/v1/alarms", "owner=alice&status=failed&failed_since=2025-01-01T00:00:00Z&limit=2", 3, "", ""},
	{"POST", "/admin/v1/alarms/retry", "", 4, "Content-Type: application/json", `{"owner":"bob","status":"failed","limit":10}`},
	{"POST", "/admin/v1/alarms/cancel", "", 4, "Content-Type: application/json", `{"owner":"bob","colour":"red"}`},
	{"POST", "/admin/v1/alarms/delete", "", 4, "Content-Type: application/json", `{"owner":"nobody","label_prefix":"x","kind":"once"}`},
	{"GET", "/admin/v1/alarms/$A", "", 3, "", ""},
	{"DELETE", "/admin/v1/alarms/$O", "", 4, "", ""},
	{"GET", "/admin/v1/alarms/$A/events", "", 3, "", ""},
	{"POST", "/admin/v1/alarms/$A/retry", "", 4, "", ""},
	{"POST", "/admin/v1/alarms/$B/cancel", "", 4, "", ""},
	{"GET", "/admin/v1/workers", "", 3, "", ""},
	{"GET", "/admin/v1/dispatch", "", 3, "", ""},
	{"POST", "/admin/v1/dispatch/pause", "", 4, "", ""},
	{"POST", "/admin/v1/dispatch/resume", "", 4, "", ""},
	{"GET", "/admin/v1/retention", "", 3, "", ""},
	{"POST", "/admin/v1/retention/run", "", 4, "", ""},
	{"GET", "/admin/v1/endpoints", "", 3, "", ""},
	{"GET", "/admin/v1/owners/alice/endpoints", "", 3, "", ""},
	{"POST", "/admin/v1/owners/bob/endpoints", "", 4, "Content-Type: application/json", `{"name":"alerts","url":"http://bob.example.com","secrets":["test-secret-of-24-bytes-b"],"timeout_seconds":2.5,"max_in_flight":4,"rate_per_second":10,"failure_url":"http://bob.example.com/f"}`},
	{"GET", "/admin/v1/owners/alice/endpoints/billing", "", 3, "", ""},
	{"PATCH", "/admin/v1/owners/alice/endpoints/billing", "", 4, "Content-Type: application/json", `{"max_in_flight":1}`},
	{"DELETE", "/admin/v1/owners/bob/endpoints/alerts", "", 4, "", ""},
	{"PUT", "/v1/alarms/$A", "", 1, "", ""},
	{"GET", "/v1/alarms", "", 0, "Authorization: Basic YWxpY2U6c2VjcmV0\nX-Request-Id: abc", ""},
	{"GET", "/nowhere", "", 1, "", ""},
}

// fuzzWho maps the input's byte to a token: none, alice, bob, admin:read, admin.
const fuzzWhoCount = 5

// FuzzAPI drives the real router over SQLite with arbitrary requests and holds it to
// what the API promises every client: no panic, no 5xx (the store is up; a 503 would
// be a lie), and every error in the documented envelope {"error": {"code", "message",
// "field"?}} as application/json. One server per fuzz process serves every input, so
// inputs also meet the state earlier ones left.
func FuzzAPI(f *testing.F) {
	s := testserver.New(f, testserver.Options{RetentionHolder: "fuzz-node"})
	tokens := [fuzzWhoCount]string{"",
		s.Token(f, "alice", domain.ScopeOwner), s.Token(f, "bob", domain.ScopeOwner),
		s.Token(f, "ops", domain.ScopeAdminRead), s.Token(f, "ops", domain.ScopeAdmin)}
	create := func(token, body string) string { // through the API, as clients do
		req := httptest.NewRequestWithContext(f.Context(), "POST", "/v1/alarms", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.Handler.ServeHTTP(rec, req)
		var out struct {
			Alarm struct {
				ID string `json:"id"`
			} `json:"alarm"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); rec.Code != http.StatusCreated || err != nil {
			f.Fatalf("creating a seed alarm: %d %s", rec.Code, rec.Body.Bytes())
		}
		return out.Alarm.ID
	}
	ids := strings.NewReplacer("$A", create(tokens[1], weekdays), "$O", create(tokens[1], onceIn60s), "$B", create(tokens[2], weekdays))
	if _, err := s.Endpoints.Create(f.Context(), domain.Endpoint{Owner: "alice", Name: "billing", URL: "http://a.example.com", Secrets: []string{"test-secret-of-24-bytes-s"}}, "fuzz"); err != nil {
		f.Fatal(err)
	}
	for _, sd := range fuzzSeeds {
		f.Add(sd.method, sd.path, sd.query, sd.who, sd.headers, []byte(sd.body))
	}

	f.Fuzz(func(t *testing.T, method, path, query string, who byte, headers string, body []byte) {
		if len(method) > fuzzMaxLine || len(path) > fuzzMaxLine || len(query) > fuzzMaxLine ||
			len(headers) > fuzzMaxLine || len(body) > fuzzMaxBody {
			return
		}
		target := "http://chronos.test/" + strings.TrimPrefix(ids.Replace(path), "/")
		if query != "" {
			target += "?" + query
		}
		req, err := http.NewRequestWithContext(t.Context(), method, target, bytes.NewReader(body))
		if err != nil {
			return // not a request a server would hand to a handler
		}
		if tok := tokens[int(who)%fuzzWhoCount]; tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		for _, line := range strings.Split(headers, "\n") {
			name, value, ok := strings.Cut(line, ":")
			value = strings.TrimSpace(value)
			if !ok || !validHeaderName(name) || !validHeaderValue(value) {
				continue // net/http refuses such a header before any handler runs
			}
			req.Header.Set(name, value)
		}
		rec := httptest.NewRecorder()
		s.Handler.ServeHTTP(rec, req)
		checkFuzzAnswer(t, req, rec)
	})
}

// checkFuzzAnswer holds one answer to the API's promises.
func checkFuzzAnswer(t *testing.T, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	what := req.Method + " " + req.URL.RequestURI()
	if rec.Code >= 500 {
		t.Fatalf("%s answered %d: %s", what, rec.Code, rec.Body.Bytes())
	}
	if rec.Code < 400 {
		return
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s answered %d with Content-Type %q, want application/json: %s", what, rec.Code, ct, rec.Body.Bytes())
	}
	var env struct {
		Error *struct {
			Code    *string `json:"code"`
			Message *string `json:"message"`
			Field   *string `json:"field"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil || dec.More() {
		t.Fatalf("%s answered %d with a body that is not the error envelope (%v): %s", what, rec.Code, err, rec.Body.Bytes())
	}
	if env.Error == nil || env.Error.Code == nil || *env.Error.Code == "" || env.Error.Message == nil || *env.Error.Message == "" {
		t.Fatalf("%s answered %d without an error code and message: %s", what, rec.Code, rec.Body.Bytes())
	}
	if env.Error.Field != nil && *env.Error.Field == "" {
		t.Fatalf("%s answered %d with an empty field (leave it out instead): %s", what, rec.Code, rec.Body.Bytes())
	}
}

// validHeaderName is RFC 9110's token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validHeaderValue refuses the control characters net/http refuses in a field value.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
