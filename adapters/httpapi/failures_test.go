package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// These tests inject the failures a real store cannot be made to produce on demand
// (timeouts, unexpected errors, panics) through stand-ins for the use cases. The
// behaviour of the API against a real store is tested in test/api.

// failingAlarms answers every call with err, or panics with panicValue when it is set.
type failingAlarms struct {
	err        error
	panicValue any
}

func (f failingAlarms) fail() error {
	if f.panicValue != nil {
		panic(f.panicValue)
	}
	return f.err
}

func (f failingAlarms) CreateOne(context.Context, domain.Spec) (ports.CreateResult, error) {
	return ports.CreateResult{}, f.fail()
}
func (f failingAlarms) CreateBatch(context.Context, []domain.Spec) ([]ports.CreateResult, error) {
	return nil, f.fail()
}
func (f failingAlarms) Get(context.Context, string, string) (domain.Alarm, error) {
	return domain.Alarm{}, f.fail()
}
func (f failingAlarms) List(context.Context, string, ports.ListFilter) ([]domain.Alarm, string, error) {
	return nil, "", f.fail()
}
func (f failingAlarms) Events(context.Context, string, string, int) ([]domain.Event, error) {
	return nil, f.fail()
}
func (f failingAlarms) Attempts(context.Context, string, string, int, string) ([]domain.Event, string, error) {
	return nil, "", f.fail()
}
func (f failingAlarms) Cancel(context.Context, string, string) (domain.Alarm, error) {
	return domain.Alarm{}, f.fail()
}
func (f failingAlarms) Backfill(context.Context, string, string, time.Time, time.Time) (domain.Alarm, int, bool, error) {
	return domain.Alarm{}, 0, false, f.fail()
}
func (f failingAlarms) Bulk(context.Context, string, ports.ListFilter, domain.OwnerBulkAction, bool) (domain.BulkResult, error) {
	return domain.BulkResult{}, f.fail()
}
func (f failingAlarms) Update(context.Context, string, string, domain.Patch) (domain.Alarm, error) {
	return domain.Alarm{}, f.fail()
}
func (f failingAlarms) SkipNext(context.Context, string, string) (domain.Alarm, error) {
	return domain.Alarm{}, f.fail()
}
func (f failingAlarms) Upcoming(context.Context, string, string, int) (domain.Alarm, []domain.Occurrence, error) {
	return domain.Alarm{}, nil, f.fail()
}
func (f failingAlarms) PreviewExcluding(context.Context, string, string, string, []string, time.Time, int) ([]time.Time, error) {
	return nil, f.fail()
}
func (f failingAlarms) Preview(string, string, time.Time, int) ([]time.Time, error) {
	return nil, f.fail()
}
func (f failingAlarms) PauseWith(context.Context, string, string, domain.PauseSpec) (domain.Alarm, error) {
	return domain.Alarm{}, f.fail()
}
func (f failingAlarms) Resume(context.Context, string, string) (domain.Alarm, error) {
	return domain.Alarm{}, f.fail()
}
func (f failingAlarms) Trigger(context.Context, string, string) (domain.Alarm, error) {
	return domain.Alarm{}, f.fail()
}

// tokenAuth accepts the token "good" as alice, and answers anything else with err
// (ErrUnauthenticated when err is nil).
type tokenAuth struct{ err error }

func (a tokenAuth) Authenticate(_ context.Context, plain string) (domain.Token, error) {
	if plain == "good" {
		return domain.Token{Owner: "alice"}, nil
	}
	if a.err != nil {
		return domain.Token{}, a.err
	}
	return domain.Token{}, fmt.Errorf("app: %w", domain.ErrUnauthenticated)
}

type pingFunc func(context.Context) error

func (f pingFunc) Ping(ctx context.Context) error { return f(ctx) }

func serve(t *testing.T, h http.Handler, method, path, token string) (*httptest.ResponseRecorder, apiError) {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var body struct{ Error apiError }
	if rec.Code >= 400 {
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s %s: %d with a body that is not the error envelope: %q", method, path, rec.Code, rec.Body)
		}
	}
	return rec, body.Error
}

func TestStoreTimeoutIsUnavailable(t *testing.T) {
	h := New(failingAlarms{err: fmt.Errorf("sqlite: get: %w", context.DeadlineExceeded)}, tokenAuth{}, nil, Options{})
	rec, e := serve(t, h, "GET", "/v1/alarms/x", "good")
	if rec.Code != 503 || e.Code != "unavailable" || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("got %d %+v, Retry-After %q; want 503 unavailable with Retry-After 1", rec.Code, e, rec.Header().Get("Retry-After"))
	}
}

// A full disk waits for an operator: the 503 asks for a retry in 30 s, not at once.
func TestStorageFullAsksForALaterRetry(t *testing.T) {
	err := fmt.Errorf("sqlite: %w: %w: database or disk is full (13)", ports.ErrUnavailable, ports.ErrStorageFull)
	h := New(failingAlarms{err: err}, tokenAuth{}, nil, Options{})
	rec, e := serve(t, h, "GET", "/v1/alarms/x", "good")
	if rec.Code != 503 || e.Code != "unavailable" || rec.Header().Get("Retry-After") != "30" {
		t.Errorf("got %d %+v, Retry-After %q; want 503 unavailable with Retry-After 30", rec.Code, e, rec.Header().Get("Retry-After"))
	}
}

func TestAuthenticatorStoreFailureIsNot401(t *testing.T) {
	h := New(failingAlarms{}, tokenAuth{err: context.DeadlineExceeded}, nil, Options{})
	rec, e := serve(t, h, "GET", "/v1/alarms", "other")
	if rec.Code != 503 || e.Code != "unavailable" {
		t.Errorf("got %d %+v; want 503 unavailable", rec.Code, e)
	}
}

func TestUnexpectedErrorIsLoggedAndHidden(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	secret := errors.New("postgres: connection to db.internal refused by pg_hba.conf")
	h := New(failingAlarms{err: secret}, tokenAuth{}, nil, Options{Logger: zap.New(core)})
	rec, e := serve(t, h, "POST", "/v1/alarms/x/pause", "good")
	if rec.Code != 500 || e.Code != "internal" {
		t.Fatalf("got %d %+v; want 500 internal", rec.Code, e)
	}
	if strings.Contains(rec.Body.String(), "db.internal") {
		t.Errorf("response leaks the error: %s", rec.Body)
	}
	entries := logs.FilterLevelExact(zapcore.ErrorLevel).All()
	if len(entries) != 1 || !strings.Contains(fmt.Sprint(entries[0].ContextMap()["error"]), "db.internal") {
		t.Errorf("error log entries = %+v; want one carrying the error", entries)
	}
	if id := rec.Header().Get(RequestIDHeader); id == "" || entries[0].ContextMap()["request_id"] != id {
		t.Errorf("log entry not tied to the request id %q: %+v", id, entries[0].ContextMap())
	}
}

func TestPanicIsA500InTheEnvelope(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	h := New(failingAlarms{panicValue: "boom"}, tokenAuth{}, nil, Options{Logger: zap.New(core)})
	rec, e := serve(t, h, "GET", "/v1/alarms", "good")
	if rec.Code != 500 || e.Code != "internal" {
		t.Fatalf("got %d %+v; want 500 internal", rec.Code, e)
	}
	if n := logs.FilterMessage("panic serving request").Len(); n != 1 {
		t.Errorf("%d panic log entries, want 1", n)
	}
	access := logs.FilterMessage("request").All()
	if len(access) != 1 || access[0].ContextMap()["status"] != int64(500) {
		t.Errorf("access log = %+v; want one entry with status 500", access)
	}
}

func TestAccessLogAtDebug(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	h := New(failingAlarms{}, tokenAuth{}, nil, Options{Logger: zap.New(core)})
	req := httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set(RequestIDHeader, "req-123")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if got := rec.Header().Get(RequestIDHeader); got != "req-123" {
		t.Errorf("request id echoed as %q, want the caller's", got)
	}
	entries := logs.FilterMessage("request").All()
	if len(entries) != 1 || entries[0].Level != zapcore.DebugLevel {
		t.Fatalf("access log = %+v; want one debug entry", entries)
	}
	m := entries[0].ContextMap()
	if m["method"] != "GET" || m["path"] != "/healthz" || m["status"] != int64(200) || m["request_id"] != "req-123" {
		t.Errorf("access log fields = %v", m)
	}
	if _, ok := m["duration"]; !ok {
		t.Error("access log lacks the duration")
	}
}

func TestRequestIDReplacedWhenUnfit(t *testing.T) {
	h := New(failingAlarms{}, tokenAuth{}, nil, Options{})
	for _, id := range []string{"", "has space", strings.Repeat("x", 129)} {
		req := httptest.NewRequest("GET", "/healthz", nil)
		req.Header.Set(RequestIDHeader, id)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := rec.Header().Get(RequestIDHeader); got == "" || got == id {
			t.Errorf("caller id %q: answered id %q, want a fresh one", id, got)
		}
	}
}

func TestReadyzTimesOutAHungStore(t *testing.T) {
	hung := pingFunc(func(ctx context.Context) error {
		<-ctx.Done() // a database that never answers
		return ctx.Err()
	})
	core, logs := observer.New(zapcore.DebugLevel)
	h := New(failingAlarms{}, tokenAuth{}, hung, Options{Logger: zap.New(core)})
	rec, e := serve(t, h, "GET", "/readyz", "")
	if rec.Code != 503 || e.Code != "unavailable" {
		t.Errorf("got %d %+v; want 503 unavailable", rec.Code, e)
	}
	if w := logs.FilterLevelExact(zapcore.WarnLevel).All(); len(w) != 1 || !strings.Contains(fmt.Sprint(w[0].ContextMap()["error"]), "deadline") {
		t.Errorf("warnings %+v; want one naming the deadline", w)
	}
}
