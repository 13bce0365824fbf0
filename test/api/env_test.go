package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/testserver"
)

// defaultMaxFailures is the server default the suite's API is configured with.
const defaultMaxFailures = testserver.MaxFailures

// env is one test's API server over its own SQLite database, with two owners.
type env struct {
	t      *testing.T
	ctx    context.Context
	srv    *httptest.Server
	client *http.Client // srv's, checking every response against openapi.yaml
	store  *sqlite.Store
	tokens *admin.Tokens
	alice  string // alice's plain bearer token
	bob    string // bob's
	ops    string // an admin token (owner "ops")
	opsID  string // its id, which admin changes record
	reader string // an admin:read token
	// backupDir is the server's --backup-dir; "" with envOptions.noBackupDir.
	backupDir string
	server    *testserver.Server // for what only a dispatcher does (Fail)
}

// envOptions varies the server a test gets.
type envOptions struct {
	showPayloads bool // --admin-show-payloads
	// The limits (0: off) and the clock they measure time on (nil: the process's).
	maxActive    int
	quotaRefresh time.Duration
	rateLimit    int
	authFailures int // --auth-failure-limit
	limitsClock  *manualClock
	metrics      bool // serve /metrics
	// The calendars' limits (0: the defaults).
	maxCalendars, maxCalendarEntries int
	// The most alarms one owner's bulk call goes through (0: the default).
	maxBulkPerCall int
	noBackupDir    bool // no --backup-dir (every other env has one of its own)
}

func newEnv(t *testing.T) *env { return newEnvWith(t, envOptions{}) }

func newEnvWith(t *testing.T, opts envOptions) *env {
	t.Helper()
	ctx := t.Context()
	so := testserver.Options{ShowPayloads: opts.showPayloads, RetentionHolder: "api-test-node",
		MaxActiveAlarmsPerOwner: opts.maxActive, QuotaRefresh: opts.quotaRefresh, RateLimit: opts.rateLimit,
		AuthFailuresPerMinute: opts.authFailures, Metrics: opts.metrics, MaxCalendarsPerOwner: opts.maxCalendars,
		MaxCalendarEntries: opts.maxCalendarEntries, MaxBulkPerCall: opts.maxBulkPerCall}
	if !opts.noBackupDir {
		so.BackupDir = t.TempDir()
	}
	if opts.limitsClock != nil {
		so.LimitsClock = opts.limitsClock
	}
	s := testserver.New(t, so)
	store, tokens := s.Store, s.Tokens
	srv := httptest.NewServer(s.Handler)
	t.Cleanup(srv.Close)
	client := *srv.Client()
	client.Transport = validatingTransport{t: t, next: client.Transport}
	e := &env{t: t, ctx: ctx, srv: srv, client: &client, store: store, tokens: tokens, backupDir: so.BackupDir, server: s}
	e.alice = e.newToken("alice")
	e.bob = e.newToken("bob")
	e.ops, e.opsID = e.newScopedToken("ops", domain.ScopeAdmin)
	e.reader, _ = e.newScopedToken("ops", domain.ScopeAdminRead)
	return e
}

func (e *env) newScopedToken(owner string, scope domain.Scope) (plain, id string) {
	e.t.Helper()
	plain, tok, err := e.tokens.Create(e.ctx, owner, scope)
	if err != nil {
		e.t.Fatal(err)
	}
	return plain, tok.ID
}

func (e *env) newToken(owner string) string {
	e.t.Helper()
	plain, _, err := e.tokens.Create(e.ctx, owner, domain.ScopeOwner)
	if err != nil {
		e.t.Fatal(err)
	}
	return plain
}

// response is an answer read in full.
type response struct {
	status int
	header http.Header
	body   []byte
}

// request sends body (none when "") with the given headers; "Authorization" and
// "Content-Type" are set only when given.
func (e *env) request(method, path, body string, headers map[string]string) response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(e.ctx, method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// as sends an authenticated request with a JSON body (none when "").
func (e *env) as(token, method, path, body string) response {
	e.t.Helper()
	h := map[string]string{"Authorization": "Bearer " + token}
	if body != "" {
		h["Content-Type"] = "application/json"
	}
	return e.request(method, path, body, h)
}

// create posts body as token's owner and expects 201.
func (e *env) create(token, body string) alarmView {
	e.t.Helper()
	res := e.as(token, "POST", "/v1/alarms", body)
	if res.status != http.StatusCreated {
		e.t.Fatalf("create %s: %d %s", body, res.status, res.body)
	}
	return decodeAlarm(e.t, res)
}

// alarmView is the API's alarm. Decoding refuses unknown fields, so a view that grew
// an undocumented field (the owner, the lease) fails the tests.
type alarmView struct {
	ID             string            `json:"id"`
	Label          string            `json:"label"`
	Kind           string            `json:"kind"`
	FireAt         *string           `json:"fire_at"`
	CronExpr       string            `json:"cron_expr"`
	Timezone       string            `json:"timezone"`
	NextFireAt     *string           `json:"next_fire_at"`
	ScheduledFor   *string           `json:"scheduled_for"`
	ConversationID string            `json:"conversation_id"`
	WakeMessage    string            `json:"wake_message"`
	Payload        json.RawMessage   `json:"payload"`
	Status         string            `json:"status"`
	Delivery       string            `json:"delivery"`
	IdempotencyKey string            `json:"idempotency_key"`
	MaxFailures    int               `json:"max_failures"`
	FailureCount   int               `json:"failure_count"`
	LastError      string            `json:"last_error"`
	CreatedAt      *string           `json:"created_at"`
	UpdatedAt      *string           `json:"updated_at"`
	LastFiredAt    *string           `json:"last_fired_at"`
	Endpoint       string            `json:"endpoint"`
	Tags           map[string]string `json:"tags"`

	// A cron alarm's options and series state; absent on a once alarm.
	Misfire             *string  `json:"misfire"`
	CatchUpLimit        *int     `json:"catch_up_limit"`
	CatchUpWindow       *string  `json:"catch_up_window"`
	MaxConsecutiveSkips *int     `json:"max_consecutive_skips"`
	StartAt             *string  `json:"start_at"`
	EndAt               *string  `json:"end_at"`
	MaxFires            *int     `json:"max_fires"`
	RemainingFires      *int     `json:"remaining_fires"`
	JitterSeconds       *int     `json:"jitter_seconds"`
	FireCount           *int     `json:"fire_count"`
	SkipStreak          *int     `json:"skip_streak"`
	PausedReason        *string  `json:"paused_reason"`
	PausedUntil         *string  `json:"paused_until"`
	BackfillOf          *string  `json:"backfill_of"`
	ExcludeCalendars    []string `json:"exclude_calendars"`
}

type eventView struct {
	ID            int64   `json:"id"`
	Type          string  `json:"type"`
	At            *string `json:"at"`
	Attempt       int     `json:"attempt"`
	ScheduledFor  *string `json:"scheduled_for"`
	OccurrenceKey string  `json:"occurrence_key"`
	Worker        string  `json:"worker"`
	Message       string  `json:"message"`
}

type errorView struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

// decodeStrict decodes a response body into v, refusing unknown fields.
func decodeStrict(t *testing.T, res response, v any) {
	t.Helper()
	if ct := res.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	dec := json.NewDecoder(strings.NewReader(string(res.body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %s into %T: %v", res.body, v, err)
	}
}

// decodeAlarm reads {"alarm": ...} or {"alarm": ..., "deduped": ...}.
func decodeAlarm(t *testing.T, res response) alarmView {
	t.Helper()
	var body struct {
		Alarm   alarmView `json:"alarm"`
		Deduped *bool     `json:"deduped"`
	}
	decodeStrict(t, res, &body)
	return body.Alarm
}

// expectAlarm asserts a 200 {"alarm": ...} and returns the alarm.
func expectAlarm(t *testing.T, res response) alarmView {
	t.Helper()
	if res.status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", res.status, res.body)
	}
	return decodeAlarm(t, res)
}

// expectError asserts the error envelope with status, code and field.
func expectError(t *testing.T, res response, status int, code, field string) errorView {
	t.Helper()
	var body struct {
		Error errorView `json:"error"`
	}
	if res.status != status {
		t.Errorf("status %d, want %d: %s", res.status, status, res.body)
	}
	decodeStrict(t, res, &body)
	if body.Error.Code != code || body.Error.Field != field {
		t.Errorf("error %+v; want code %q field %q", body.Error, code, field)
	}
	if body.Error.Message == "" {
		t.Error("error without a message")
	}
	return body.Error
}

// instant parses an API time, which must be RFC 3339 in UTC.
func instant(t *testing.T, s *string) time.Time {
	t.Helper()
	if s == nil {
		t.Fatal("time is null")
	}
	at, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		t.Fatalf("time %q: %v", *s, err)
	}
	if !strings.HasSuffix(*s, "Z") {
		t.Errorf("time %q is not in UTC", *s)
	}
	return at
}

// near asserts that got is within a few seconds of want.
func near(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if d := got.Sub(want); d < -5*time.Second || d > 5*time.Second {
		t.Errorf("%s = %s, want about %s", what, got, want)
	}
}

const (
	onceIn60s = `{"kind":"once","delay_seconds":60}`
	weekdays  = `{"kind":"cron","cron_expr":"0 9 * * 1-5","timezone":"Europe/Paris"}`
)
