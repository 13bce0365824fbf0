package contract

import (
	"context"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var contextCases = []testCase{
	{"CanceledPassesThrough", testContextCanceled},
	{"DeadlinePassesThrough", testContextDeadline},
}

// storeCalls is one call of every store method that does I/O, on ctx.
func (e *env) storeCalls(ctx context.Context, existing domain.Alarm) map[string]error {
	calls := map[string]error{}
	_, _, calls["Create"] = CreateOne(ctx, e.store, e.build(e.onceIn(alice, time.Hour)))
	_, calls["Get"] = e.store.Get(ctx, ports.OwnedBy(alice), existing.ID)
	_, _, calls["List"] = e.store.List(ctx, ports.ListFilter{Scope: ports.OwnedBy(alice)})
	_, calls["Mutate"] = e.store.Mutate(ctx, ports.OwnedBy(alice), existing.ID, cancelFn)
	_, calls["Events"] = e.store.Events(ctx, ports.OwnedBy(alice), existing.ID, 0)
	_, calls["ClaimDue"] = e.store.ClaimDue(ctx, ports.ClaimParams{Worker: "w1", Lease: longLease, Batch: 10})
	_, calls["Apply"] = e.store.Apply(ctx, []domain.Transition{e.fire(existing)})
	_, _, calls["NextDue"] = e.store.NextDue(ctx)
	calls["CreateToken"] = e.store.CreateToken(ctx, e.newToken(alice))
	_, calls["TokenByHash"] = e.store.TokenByHash(ctx, "00")
	_, calls["ListTokens"] = e.store.ListTokens(ctx, "")
	calls["TouchToken"] = e.store.TouchToken(ctx, "tok", e.now(), e.now())
	calls["RegisterWorker"] = e.store.RegisterWorker(ctx, domain.Worker{ID: "w1", Host: "h", PID: 1})
	calls["Heartbeat"] = e.store.Heartbeat(ctx, "w1", domain.WorkerStats{})
	_, _, calls["List(AnyOwner)"] = e.store.List(ctx, ports.ListFilter{Scope: ports.AnyOwner})
	_, calls["Get(AnyOwner)"] = e.store.Get(ctx, ports.AnyOwner, existing.ID)
	_, calls["Mutate(AnyOwner)"] = e.store.Mutate(ctx, ports.AnyOwner, existing.ID, cancelFn)
	_, calls["DeleteAlarms"] = e.store.DeleteAlarms(ctx, []string{existing.ID})
	_, calls["CountAlarms"] = e.store.CountAlarms(ctx, time.Minute)
	_, _, calls["GetState"] = e.store.GetState(ctx, "dispatch")
	calls["PutState"] = e.store.PutState(ctx, "dispatch", "{}")
	_, calls["SwapState"] = e.store.SwapState(ctx, "dispatch", "{}", "[]")
	_, calls["SwapState(new)"] = e.store.SwapState(ctx, "calendars", "", "[]")
	_, calls["ListWorkers"] = e.store.ListWorkers(ctx)
	ep := e.newEndpoint(alice, "billing")
	_, calls["CreateEndpoint"] = e.store.CreateEndpoint(ctx, ep)
	_, calls["GetEndpoint"] = e.store.GetEndpoint(ctx, alice, ep.Name)
	_, calls["ListEndpoints"] = e.store.ListEndpoints(ctx, "")
	_, calls["UpdateEndpoint"] = e.store.UpdateEndpoint(ctx, ep)
	calls["DeleteEndpoint"] = e.store.DeleteEndpoint(ctx, alice, ep.Name)
	_, calls["PutCalendar"] = e.store.PutCalendar(ctx, e.newCalendar(alice, "holidays"), 5)
	_, calls["GetCalendar"] = e.store.GetCalendar(ctx, alice, "holidays")
	_, calls["ListCalendars"] = e.store.ListCalendars(ctx, alice)
	_, calls["GetCalendars"] = e.store.GetCalendars(ctx, alice, []string{"holidays"})
	_, _, calls["CalendarUser"] = e.store.CalendarUser(ctx, alice, "holidays")
	calls["DeleteCalendar"] = e.store.DeleteCalendar(ctx, alice, "holidays")
	calls["Ping"] = e.store.Ping(ctx)
	return calls
}

// A call on a cancelled context returns an error that is context.Canceled (wrapped or
// not, never mapped to a store error) and writes nothing.
func testContextCanceled(t *testing.T, e *env) {
	a := e.createDue(alice)
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	for name, err := range e.storeCalls(ctx, a) {
		wantErr(t, name+" on a cancelled context", err, context.Canceled)
	}
	e.wantStored("after cancelled calls", a)
	e.wantEvents("events", e.events(alice, a.ID), a)
	if all := e.listAll(alice, "", 0); len(all) != 1 {
		t.Errorf("alice has %d alarms after a cancelled Create, want 1", len(all))
	}
}

// Likewise for a context past its deadline.
func testContextDeadline(t *testing.T, e *env) {
	a := e.createDue(alice)
	ctx, cancel := context.WithDeadline(e.ctx, time.Now().Add(-time.Second))
	defer cancel()
	for name, err := range e.storeCalls(ctx, a) {
		wantErr(t, name+" past the deadline", err, context.DeadlineExceeded)
	}
	e.wantStored("after expired calls", a)
}
