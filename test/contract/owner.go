package contract

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var ownerCases = []testCase{
	{"OtherOwnerSeesNothing", testOwnerOtherSeesNothing},
	{"UnknownID", testOwnerUnknownID},
	{"EmptyScopeSeesNothing", testOwnerEmptyScope},
	{"ScopedListTakesEveryFilter", testOwnerScopedListFilters},
}

// Another owner's alarm is indistinguishable from a missing one: Get, Mutate and
// Events say ErrNotFound, List leaves it out, and Mutate never runs fn on it.
func testOwnerOtherSeesNothing(t *testing.T, e *env) {
	a := e.createDue(alice)

	_, err := e.store.Get(e.ctx, ports.OwnedBy(bob), a.ID)
	wantErr(t, "Get as another owner", err, ports.ErrNotFound)

	called := false
	_, err = e.store.Mutate(e.ctx, ports.OwnedBy(bob), a.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		called = true
		return cancelFn(a, now)
	})
	wantErr(t, "Mutate as another owner", err, ports.ErrNotFound)
	if called {
		t.Error("Mutate as another owner ran fn on alice's alarm")
	}

	_, err = e.store.Events(e.ctx, ports.OwnedBy(bob), a.ID, 0)
	wantErr(t, "Events as another owner", err, ports.ErrNotFound)

	if as := e.listAll(bob, "", 0); len(as) != 0 {
		t.Errorf("List as bob = %v, want nothing", alarmIDs(as))
	}
	if as := e.listAll(alice, "", 0); len(as) != 1 || as[0].ID != a.ID {
		t.Errorf("List as alice = %v, want [%s]", alarmIDs(as), a.ID)
	}
	e.wantStored("alice's alarm after bob's attempts", a)
	if evs := e.events(alice, a.ID); len(evs) != 1 {
		t.Errorf("alice's alarm has events %v, want only created", eventTypes(evs))
	}
}

// An id nobody has, well-formed or not, is ErrNotFound (never a driver error such as
// "invalid input syntax for type uuid": ids come straight from URLs).
func testOwnerUnknownID(t *testing.T, e *env) {
	e.createDue(alice)
	for _, id := range []string{newID(), "not-a-uuid", "", "'; DROP TABLE alarms; --"} {
		_, err := e.store.Get(e.ctx, ports.OwnedBy(alice), id)
		wantErr(t, "Get("+id+")", err, ports.ErrNotFound)
		_, err = e.store.Mutate(e.ctx, ports.OwnedBy(alice), id, cancelFn)
		wantErr(t, "Mutate("+id+")", err, ports.ErrNotFound)
		_, err = e.store.Events(e.ctx, ports.OwnedBy(alice), id, 0)
		wantErr(t, "Events("+id+")", err, ports.ErrNotFound)
	}
}

// A scope that names no owner (the zero Scope, OwnedBy("")) reaches nothing, never every
// owner: an owner id lost on the way fails closed. Even an alarm whose owner is the
// empty string (no API makes one) is out of it.
func testOwnerEmptyScope(t *testing.T, e *env) {
	a := e.createDue(alice)
	for name, scope := range map[string]ports.Scope{"the zero Scope": {}, `OwnedBy("")`: ports.OwnedBy("")} {
		_, err := e.store.Get(e.ctx, scope, a.ID)
		wantErr(t, "Get with "+name, err, ports.ErrNotFound)
		called := false
		_, err = e.store.Mutate(e.ctx, scope, a.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
			called = true
			return cancelFn(a, now)
		})
		wantErr(t, "Mutate with "+name, err, ports.ErrNotFound)
		if called {
			t.Errorf("Mutate with %s ran fn", name)
		}
		_, err = e.store.Events(e.ctx, scope, a.ID, 0)
		wantErr(t, "Events with "+name, err, ports.ErrNotFound)
		for _, f := range []ports.ListFilter{{Scope: scope}, {Scope: scope, Status: domain.StatusActive}, {Scope: scope, Kind: domain.KindOnce}} {
			if as, next, err := e.store.List(e.ctx, f); err != nil || len(as) != 0 || next != "" {
				t.Errorf("List(%+v) with %s = %v, %q, %v; want an empty last page", f, name, alarmIDs(as), next, err)
			}
		}
	}
	e.wantStored("alice's alarm", a)
}

// An owner's list takes the operator's filters too (kind, label prefix), within the
// owner's alarms only: the scope and the filters are one ListFilter.
func testOwnerScopedListFilters(t *testing.T, e *env) {
	mine := e.create(domain.Spec{Owner: alice, Kind: domain.KindCron, CronExpr: "0 * * * *", Timezone: "UTC", Label: "billing:a"})
	e.create(domain.Spec{Owner: alice, Kind: domain.KindCron, CronExpr: "0 * * * *", Timezone: "UTC", Label: "report"})
	e.create(e.onceIn(alice, time.Hour))
	e.create(domain.Spec{Owner: bob, Kind: domain.KindCron, CronExpr: "0 * * * *", Timezone: "UTC", Label: "billing:b"})
	f := ports.ListFilter{Scope: ports.OwnedBy(alice), Kind: domain.KindCron, LabelPrefix: "billing:"}
	as, next, err := e.store.List(e.ctx, f)
	if err != nil || next != "" || len(as) != 1 || as[0].ID != mine.ID {
		t.Errorf("List(%+v) = %v, %q, %v; want [%s] alone", f, alarmIDs(as), next, err, mine.ID)
	}
}
