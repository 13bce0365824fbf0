package httpapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/chronoshq/chronos/adapters/internal/operator"
	"github.com/chronoshq/chronos/domain"
)

// switchPing fails with err while it is set; a database cannot be made to fail and
// come back on demand.
type switchPing struct {
	mu  sync.Mutex
	err error
}

func (p *switchPing) set(err error) { p.mu.Lock(); p.err = err; p.mu.Unlock() }
func (p *switchPing) Ping(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// adminAuth accepts "ops" as an admin:read token.
type adminAuth struct{}

func (adminAuth) Authenticate(_ context.Context, plain string) (domain.Token, error) {
	if plain == "ops" {
		return domain.Token{ID: "tok_ops", Owner: "ops", Scope: domain.ScopeAdminRead}, nil
	}
	return domain.Token{}, domain.ErrUnauthenticated
}

// noAdmin is an Admin none of whose use cases the readiness routes call.
type noAdmin struct{ operator.Admin }

// Anyone may ask /readyz, so a failed ping answers "store unavailable" and nothing of
// the database; the cause goes to the log once when the store stops answering (not
// once per probe) and to an admin at /admin/v1/readyz; the log says when it answers
// again.
func TestReadyzKeepsTheCauseForTheLogAndAdmins(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	ping := &switchPing{}
	h := New(failingAlarms{}, adminAuth{}, ping, Options{Logger: zap.New(core), Admin: noAdmin{}})
	cause := errors.New(`failed to connect to user=chronos database=chronos: 10.1.2.3:5432 (db.internal): server error: FATAL: password authentication failed`)
	ping.set(cause)
	for range 5 {
		rec, e := serve(t, h, "GET", "/readyz", "")
		if rec.Code != 503 || e.Code != "unavailable" || e.Message != "store unavailable" || rec.Header().Get("Retry-After") == "" {
			t.Fatalf("/readyz = %d %+v (Retry-After %q); want 503 unavailable, store unavailable, with Retry-After", rec.Code, e, rec.Header().Get("Retry-After"))
		}
		for _, detail := range []string{"chronos", "10.1.2.3", "db.internal", "password"} {
			if strings.Contains(rec.Body.String(), detail) {
				t.Errorf("/readyz tells anyone %q: %s", detail, rec.Body)
			}
		}
	}
	warn := logs.FilterLevelExact(zapcore.WarnLevel).All()
	if len(warn) != 1 || fmt.Sprint(warn[0].ContextMap()["error"]) != cause.Error() {
		t.Errorf("after five failed probes the log has %d warnings (%+v); want one, with the cause", len(warn), warn)
	}
	rec, e := serve(t, h, "GET", "/admin/v1/readyz", "ops")
	if rec.Code != 503 || e.Code != "unavailable" || !strings.Contains(e.Message, "db.internal") {
		t.Errorf("/admin/v1/readyz = %d %+v; want 503 with the cause", rec.Code, e)
	}
	if rec, _ := serve(t, h, "GET", "/admin/v1/readyz", ""); rec.Code != 401 {
		t.Errorf("/admin/v1/readyz without a token = %d, want 401", rec.Code)
	}

	ping.set(nil)
	for range 3 {
		if rec, _ := serve(t, h, "GET", "/readyz", ""); rec.Code != 200 {
			t.Fatalf("/readyz once the store answers = %d, want 200", rec.Code)
		}
	}
	if rec, _ := serve(t, h, "GET", "/admin/v1/readyz", "ops"); rec.Code != 200 {
		t.Errorf("/admin/v1/readyz once the store answers = %d, want 200", rec.Code)
	}
	if back := logs.FilterMessageSnippet("answers again").All(); len(back) != 1 {
		t.Errorf("the log says %d times that the store answers again, want once", len(back))
	}
	ping.set(cause)
	serve(t, h, "GET", "/readyz", "")
	if n := logs.FilterMessageSnippet("does not answer").Len(); n != 2 {
		t.Errorf("a second outage: %d log lines say the store does not answer, want 2 (one per outage)", n)
	}
}

// A failure that lasts is logged again, with its cause, once a minute.
func TestStoreHealthRepeatsALastingFailureEveryMinute(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	log := zap.New(core)
	var h storeHealth
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for s := 0; s <= 150; s += 5 { // a probe every 5 s for 2.5 minutes
		h.failed(log, fmt.Errorf("refused %d", s), start.Add(time.Duration(s)*time.Second))
	}
	got := logs.All()
	if len(got) != 3 {
		t.Fatalf("%d log lines over 2.5 minutes of failed probes, want 3 (at 0, 60 and 120 s): %+v", len(got), got)
	}
	if !strings.Contains(got[2].Message, "still") || fmt.Sprint(got[2].ContextMap()["error"]) != "refused 120" ||
		got[2].ContextMap()["down_for"] != 2*time.Minute {
		t.Errorf("the third line = %q %v, want the cause at 120 s and down_for 2m", got[2].Message, got[2].ContextMap())
	}
}
