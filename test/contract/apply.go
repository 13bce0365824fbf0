package contract

import (
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

func applyCases() []testCase {
	cases := []testCase{
		{"StaleAfterReclaim", testApplyStaleAfterReclaim},
		{"StaleAfterOwnerCancel", testApplyStaleAfterOwnerCancel},
		{"MixedBatch", testApplyMixedBatch},
		{"ReplayIsStale", testApplyReplayIsStale},
		{"Unfenced", testApplyUnfenced},
		{"EmptyBatch", testApplyEmptyBatch},
		{"UnknownAlarmIsStale", testApplyUnknownAlarm},
		{"Notice", testApplyNotice},
	}
	for _, k := range transitionKinds {
		cases = append(cases, testCase{"Kind/" + k.name, func(t *testing.T, e *env) { testApplyKind(t, e, k) }})
	}
	return cases
}

// A worker whose lease ran out and was re-taken by another changes nothing: not the
// row, not the history. The new holder's outcome applies.
func testApplyStaleAfterReclaim(t *testing.T, e *env) {
	a := e.createDue(alice)
	old := e.claimOnly("w1", shortLease, a.ID)
	e.clock.Advance(shortLease + time.Second)
	cur := e.claimOnly("w2", shortLease, a.ID)
	row, evs := e.get(alice, a.ID), e.events(alice, a.ID)

	for _, tr := range []domain.Transition{e.fire(old), e.fail(old, "late")} {
		e.applyStale([]domain.Transition{tr}, a.ID)
		e.wantAlarm("row after a stale "+string(tr.Kind), e.get(alice, a.ID), row)
		e.sameLease("lease after a stale "+string(tr.Kind), e.get(alice, a.ID), cur)
		if got := e.events(alice, a.ID); len(got) != len(evs) {
			t.Errorf("a stale %s wrote events: %v, want %v", tr.Kind, eventTypes(got), eventTypes(evs))
		}
	}

	fired := e.fire(cur)
	e.applyOK(fired)
	e.wantStored("after the current holder's outcome", fired.ApplyTo(cur))
}

// An owner cancel releases the lease, so the worker's outcome, arriving later, is
// stale: the alarm stays cancelled.
func testApplyStaleAfterOwnerCancel(t *testing.T, e *env) {
	a := e.createDue(alice)
	held := e.claimOnly("w1", longLease, a.ID)
	e.clock.Advance(time.Second)
	cancel := e.mutateApplied(alice, a.ID, cancelFn)
	row := e.get(alice, a.ID)

	e.clock.Advance(time.Second)
	e.applyStale([]domain.Transition{e.fire(held)}, a.ID)
	e.wantStored("after the stale fire", row)
	if row.Status != domain.StatusCancelled {
		t.Errorf("status = %s, want cancelled", row.Status)
	}
	e.wantEvents("events", e.events(alice, a.ID), a, cancel.Events...)
}

// One batch may mix applied and stale transitions; each is judged on its own fence.
func testApplyMixedBatch(t *testing.T, e *env) {
	var created []domain.Alarm
	for range 3 {
		created = append(created, e.createDue(alice))
	}
	c := e.claim("w1", longLease, 10)
	if len(c.Alarms) != 3 {
		t.Fatalf("claimed %d alarms, want 3", len(c.Alarms))
	}
	claimed := map[string]domain.Alarm{}
	for _, a := range c.Alarms {
		claimed[a.ID] = a
	}
	victim := created[1]
	e.mutate(alice, victim.ID, cancelFn)
	cancelledRow := e.get(alice, victim.ID)

	e.clock.Advance(time.Second)
	var batch []domain.Transition
	for _, a := range created {
		batch = append(batch, e.fire(claimed[a.ID]))
	}
	e.applyStale(batch, victim.ID)

	for i, a := range created {
		if a.ID == victim.ID {
			e.wantStored("the stale one", cancelledRow)
			continue
		}
		e.wantStored("an applied one", batch[i].ApplyTo(claimed[a.ID]))
		e.wantEvents("an applied one", e.events(alice, a.ID), a, batch[i].Events...)
	}
}

// Applying the same outcome twice: the first release of the lease makes the second
// stale, so nothing is written twice.
func testApplyReplayIsStale(t *testing.T, e *env) {
	s := e.onceIn(alice, 0)
	s.MaxFailures = 3
	a := e.create(s)
	held := e.claimOnly("w1", longLease, a.ID)
	retry := e.fail(held, "HTTP 500")
	e.applyOK(retry)
	e.applyStale([]domain.Transition{retry}, a.ID)
	e.wantStored("after the replay", retry.ApplyTo(held))
	e.wantEvents("events", e.events(alice, a.ID), a, retry.Events...)
}

// A transition with a zero Fence applies whatever the lease (owner actions, and
// outcomes for alarms nobody claimed).
func testApplyUnfenced(t *testing.T, e *env) {
	a := e.createDue(alice)
	fired := e.fire(a) // a was never claimed: Begin takes its empty fence
	if !fired.Fence.IsZero() {
		t.Fatalf("fence of an unclaimed alarm's outcome = %+v, want zero", fired.Fence)
	}
	e.applyOK(fired)
	e.wantStored("unclaimed alarm after an unfenced fire", fired.ApplyTo(a))

	b := e.createDue(alice)
	held := e.claimOnly("w1", longLease, b.ID)
	cancel, _ := domain.Cancel(held, e.now())
	e.applyOK(cancel)
	e.wantStored("leased alarm after an unfenced cancel", cancel.ApplyTo(held))
}

// An empty batch is no work and no error.
func testApplyEmptyBatch(t *testing.T, e *env) {
	for _, batch := range [][]domain.Transition{nil, {}} {
		r := e.apply(batch...)
		if r.Applied != 0 || len(r.Stale) != 0 {
			t.Errorf("Apply(empty) = %+v, want nothing applied or stale", r)
		}
	}
}

// A transition for an alarm that is not there (never was, or was deleted while a
// worker held it) matches no row: it is reported stale, and the rest of the batch
// still applies.
func testApplyUnknownAlarm(t *testing.T, e *env) {
	a := e.createDue(alice)
	held := e.claimOnly("w1", longLease, a.ID)
	ghost := e.fire(held)
	ghost.AlarmID = newID()
	for i := range ghost.Events {
		ghost.Events[i].AlarmID = ghost.AlarmID
	}
	fired := e.fire(held)
	e.applyStale([]domain.Transition{ghost, fired}, ghost.AlarmID)
	e.wantStored("the real alarm", fired.ApplyTo(held))
}

// A transition's Notice is created with it, as CreateBatch would create it (its created
// event, claimable when due), and only when the transition applies: presented again,
// now stale, it makes no second notice; in a batch, a stale transition's notice is
// left out and a fresh one's goes in.
func testApplyNotice(t *testing.T, e *env) {
	a := e.createDue(alice)
	failed := e.withNotice(e.fail(e.claimOnly("w1", longLease, a.ID), "HTTP 404: no such hook"))
	e.applyOK(failed)
	n := *failed.Notice
	e.wantStored("the notice", n)
	e.wantEvents("the notice's events", e.events(alice, n.ID), n)

	e.applyStale([]domain.Transition{failed}, a.ID)
	e.wantEvents("the notice's events after the replay", e.events(alice, n.ID), n)
	if all := e.listAll(alice, "", 100); len(all) != 2 {
		t.Errorf("after the replay alice has %v, want the alarm and one notice", alarmIDs(all))
	}
	e.claimOnly("w2", longLease, n.ID) // the failed alarm is not due; its notice is

	b, c := e.createDue(alice), e.createDue(alice)
	claimed := map[string]domain.Alarm{}
	for _, x := range e.claim("w3", longLease, 10).Alarms {
		claimed[x.ID] = x
	}
	if len(claimed) != 2 {
		t.Fatalf("claimed %v, want %s and %s", claimed, b.ID, c.ID)
	}
	e.mutate(alice, b.ID, cancelFn) // releases b's lease: its outcome is stale
	stale := e.withNotice(e.fail(claimed[b.ID], "HTTP 404"))
	fresh := e.withNotice(e.fail(claimed[c.ID], "HTTP 404"))
	e.applyStale([]domain.Transition{stale, fresh}, b.ID)
	e.wantStored("the fresh one's notice", *fresh.Notice)
	e.wantEvents("the fresh one's notice's events", e.events(alice, fresh.Notice.ID), *fresh.Notice)
	_, err := e.store.Get(e.ctx, ports.OwnedBy(alice), stale.Notice.ID)
	wantErr(t, "Get of a stale transition's notice", err, ports.ErrNotFound)
}

// withNotice attaches to tr a failure notice for its alarm's owner (alice), due now,
// built as the domain builds one: a plain once alarm whose Series names the notice.
func (e *env) withNotice(tr domain.Transition) domain.Transition {
	e.t.Helper()
	zero := time.Duration(0)
	n, err := domain.NewAlarm(newID(), domain.Spec{Owner: alice, Kind: domain.KindOnce, Delay: &zero, Label: "notice"}, e.now(), defaults)
	if err != nil {
		e.t.Fatalf("domain.NewAlarm(notice): %v", err)
	}
	n.Series.Notice = "alarm.failed"
	tr.Notice = &n
	return tr
}

// transitionKind is one way a claimed alarm's delivery can end.
type transitionKind struct {
	name     string
	spec     func(e *env) domain.Spec
	outcome  domain.Outcome
	advanced bool                  // at-most-once: an advance is applied (lease kept) before the outcome
	want     domain.TransitionKind // what Decide must return, to be sure the case tests what it names
}

var transitionKinds = []transitionKind{
	{name: "Fired", want: domain.TransitionFired, outcome: domain.Delivered(),
		spec: func(e *env) domain.Spec { return e.onceIn(alice, 0) }},
	{name: "Rescheduled", want: domain.TransitionRescheduled, outcome: domain.Delivered(),
		spec: func(*env) domain.Spec { return cronSpec(alice, "*/5 * * * *", "Asia/Tokyo") }},
	{name: "Retry", want: domain.TransitionRetry, outcome: domain.DeliveryFailed("HTTP 503: busy"),
		spec: func(e *env) domain.Spec { s := e.onceIn(alice, 0); s.MaxFailures = 3; return s }},
	{name: "Failed", want: domain.TransitionFailed, outcome: domain.DeliveryFailed("HTTP 404: no such hook"),
		spec: func(e *env) domain.Spec { s := e.onceIn(alice, 0); s.MaxFailures = 1; return s }},
	// A waker's error as raw as it comes (an in-process handler's bytes, a receiver's):
	// the store keeps whatever text the domain made of it.
	{name: "FailedWithRawBytes", want: domain.TransitionFailed,
		outcome: domain.DeliveryFailed("handler: \x00\xff\x1b " + strings.Repeat("é", 2*domain.MaxFailureText)),
		spec:    func(e *env) domain.Spec { s := e.onceIn(alice, 0); s.MaxFailures = 1; return s }},
	{name: "Skipped", want: domain.TransitionSkipped, outcome: domain.DeliveryFailed("timeout after 10s"),
		spec: func(*env) domain.Spec { s := cronSpec(alice, "@hourly", ""); s.MaxFailures = 1; return s }},
	{name: "AdvancedThenRecordedDelivered", want: domain.TransitionRecorded, outcome: domain.Delivered(), advanced: true,
		spec: func(e *env) domain.Spec { s := e.onceIn(alice, 0); s.Delivery = domain.AtMostOnce; return s }},
	{name: "AdvancedThenRecordedFailed", want: domain.TransitionRecorded, outcome: domain.DeliveryFailed("connection refused"), advanced: true,
		spec: func(*env) domain.Spec {
			s := cronSpec(alice, "0 9 * * *", "Europe/Berlin")
			s.Delivery = domain.AtMostOnce
			return s
		}},
}

// Every kind of outcome writes exactly what the domain decided, every column, and
// its events. An at-most-once advance keeps the lease so the recorded outcome, fenced
// on the same lease, still applies.
func testApplyKind(t *testing.T, e *env, k transitionKind) {
	a := e.create(k.spec(e))
	e.clock.Set(a.NextFireAt.Add(time.Second))
	claimed := e.claimOnly("w1", longLease, a.ID)
	f := domain.Begin(claimed, e.now(), policy)

	row := claimed
	var applied []domain.Transition
	if k.advanced {
		if f.Advance == nil {
			t.Fatal("Begin of an at-most-once alarm made no advance")
		}
		e.applyOK(*f.Advance)
		row = f.Advance.ApplyTo(claimed)
		e.wantStored("after the advance", row)
		e.sameLease("lease after the advance", e.get(alice, a.ID), claimed)
		applied = append(applied, *f.Advance)
	}

	e.clock.Advance(2 * time.Second)
	tr := domain.Decide(f, k.outcome, e.now(), policy)
	if tr.Kind != k.want {
		t.Fatalf("domain.Decide made a %s transition, want %s: the case no longer tests what it names", tr.Kind, k.want)
	}
	e.applyOK(tr)
	want := tr.ApplyTo(row)
	e.wantStored("after "+string(tr.Kind), want)
	if got := e.get(alice, a.ID); got.ClaimedBy != "" || !got.ClaimedAt.IsZero() {
		t.Errorf("lease after %s = (%q, %s), want released", tr.Kind, got.ClaimedBy, fmtTime(got.ClaimedAt))
	}
	applied = append(applied, tr)
	e.wantEvents("events", e.events(alice, a.ID), a, eventsOf(applied...)...)
}
