package contract

import (
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

var traceCases = []testCase{
	{"CreateGetList", testTraceCreateGetList},
	{"BatchCreate", testTraceBatchCreate},
	{"BulkCreate", testTraceBulkCreate},
	{"Claim", testTraceClaim},
	{"Notice", testTraceNotice},
}

// traceParent and a tracestate of the largest size an alarm keeps.
const traceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

var traceState = "congo=t61rcWkgMzE," + strings.Repeat("r", domain.MaxTraceStateLen-len("congo=t61rcWkgMzE,")-2) + "=x"

// traced is s with the trace context above.
func traced(s domain.Spec) domain.Spec {
	s.TraceParent, s.TraceState = traceParent, traceState
	return s
}

// wantTrace fails unless got carries want's trace context.
func wantTrace(t *testing.T, what string, got, want domain.Alarm) {
	t.Helper()
	if got.TraceParent != want.TraceParent || got.TraceState != want.TraceState {
		t.Errorf("%s: trace context %q, %q; want %q, %q", what, got.TraceParent, got.TraceState, want.TraceParent, want.TraceState)
	}
}

// The trace context an alarm was created in comes back from Get and List; an alarm
// created without one has none (never an empty-but-set value).
func testTraceCreateGetList(t *testing.T, e *env) {
	a := e.create(traced(e.onceIn(alice, time.Hour)))
	plain := e.create(e.onceIn(alice, time.Hour))
	wantTrace(t, "Get", e.get(alice, a.ID), a)
	wantTrace(t, "Get without a trace", e.get(alice, plain.ID), domain.Alarm{})
	for _, x := range e.listAll(alice, "", 10) {
		switch x.ID {
		case a.ID:
			wantTrace(t, "List", x, a)
		case plain.ID:
			wantTrace(t, "List without a trace", x, domain.Alarm{})
		}
	}
}

// CreateBatch keeps each item's own trace context, or none.
func testTraceBatchCreate(t *testing.T, e *env) {
	as := []domain.Alarm{
		e.build(traced(e.onceIn(alice, time.Hour))),
		e.build(e.onceIn(alice, time.Hour)),
		e.build(traced(cronSpec(bob, "*/5 * * * *", "UTC"))),
	}
	as[2].TraceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"
	for i, r := range e.createBatch(as...) {
		if r.Err != nil {
			t.Fatalf("item %d: %v", i, r.Err)
		}
		wantTrace(t, "CreateBatch result", r.Alarm, as[i])
		wantTrace(t, "read back", e.get(as[i].Owner, as[i].ID), as[i])
	}
}

// The optional bulk create keeps the trace context too.
func testTraceBulkCreate(t *testing.T, e *env) {
	bc := e.bulk()
	as := []domain.Alarm{e.build(traced(e.onceIn(alice, time.Hour))), e.build(e.onceIn(alice, time.Hour))}
	if err := bc.CreateMany(e.ctx, as); err != nil {
		t.Fatalf("CreateMany: %v", err)
	}
	for _, a := range as {
		wantTrace(t, "after CreateMany", e.get(alice, a.ID), a)
	}
}

// A claimed alarm carries its trace context: the dispatcher sends a child of it with
// every wake, from what the claim returned.
func testTraceClaim(t *testing.T, e *env) {
	a := e.create(traced(e.onceIn(alice, 0)))
	plain := e.create(e.onceIn(bob, 0))
	claimed := e.claim("w1", longLease, 10).Alarms
	if len(claimed) != 2 {
		t.Fatalf("claimed %v, want %s and %s", alarmIDs(claimed), a.ID, plain.ID)
	}
	for _, c := range claimed {
		if c.ID == a.ID {
			wantTrace(t, "claimed", c, a)
		} else {
			wantTrace(t, "claimed without a trace", c, plain)
		}
	}
}

// A failure notice is stored with the trace context the domain gave it (its alarm's).
func testTraceNotice(t *testing.T, e *env) {
	a := e.create(traced(e.onceIn(alice, 0)))
	failed := e.withNotice(e.fail(e.claimOnly("w1", longLease, a.ID), "HTTP 404: no such hook"))
	failed.Notice.TraceParent, failed.Notice.TraceState = a.TraceParent, a.TraceState
	e.applyOK(failed)
	wantTrace(t, "the notice", e.get(alice, failed.Notice.ID), a)
}
