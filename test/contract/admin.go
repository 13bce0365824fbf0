package contract

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var adminCases = []testCase{
	{"GetAndEventsOfAnyOwner", testAdminGetAnyOwner},
	{"UnknownID", testAdminUnknownID},
	{"ListAcrossOwnersNewestFirst", testAdminListAcrossOwners},
	{"ListFilters", testAdminListFilters},
	{"ListLabelPrefixIsLiteral", testAdminListLabelPrefixLiteral},
	{"ListBadCursor", testAdminListBadCursor},
	{"MutateRetryReleasesTheLease", testAdminMutateRetry},
	{"DeleteAlarmsWithTheirEvents", testAdminDelete},
	{"CountAlarms", testAdminCount},
}

func (e *env) adminList(f ports.ListFilter) ([]domain.Alarm, string) {
	e.t.Helper()
	as, next, err := e.store.List(e.ctx, f)
	if err != nil {
		e.t.Fatalf("List(%+v): %v", f, err)
	}
	return as, next
}

// adminListAll walks every page of f. A filtered page may be short, even empty, and
// carry a cursor (AlarmReader.List); each cursor must go on past the one before.
func (e *env) adminListAll(f ports.ListFilter) []domain.Alarm {
	e.t.Helper()
	var all []domain.Alarm
	for page := 0; ; page++ {
		if page > 10000 {
			e.t.Fatal("List never returned an empty cursor")
		}
		as, next := e.adminList(f)
		all = append(all, as...)
		if next == "" {
			return all
		}
		e.wantPastCursor(f.Cursor, next)
		f.Cursor = next
	}
}

// wantPastCursor fails unless next, a list's cursor, goes on past prev (the cursor of
// the page before, "" for the first): lists page by id, newest first.
func (e *env) wantPastCursor(prev, next string) {
	e.t.Helper()
	n, err := ports.DecodeListCursor(next)
	if err != nil {
		e.t.Fatalf("List returned cursor %q, which is not one: %v", next, err)
	}
	if p, _ := ports.DecodeListCursor(prev); prev != "" && n >= p {
		e.t.Fatalf("List's cursor after %s is %s, which does not go on past it", p, n)
	}
}

// newestFirst is ids ordered as a list returns them.
func newestFirst(as ...domain.Alarm) []string {
	ids := alarmIDs(as)
	slices.Sort(ids)
	slices.Reverse(ids)
	return ids
}

// failedOnce creates a once alarm of owner with one allowed failure and fails it.
func (e *env) failedOnce(owner, label string) domain.Alarm {
	e.t.Helper()
	spec := e.onceIn(owner, 0)
	spec.MaxFailures = 1
	spec.Label = label
	a := e.create(spec)
	e.applyOK(e.fail(e.claimOnly("w1", time.Minute, a.ID), "receiver down"))
	a = e.get(owner, a.ID)
	if a.Status != domain.StatusFailed {
		e.t.Fatalf("setup: alarm %s is %s, want failed", a.ID, a.Status)
	}
	return a
}

// Get and Events with ports.AnyOwner read any owner's alarm, owner included, exactly as the
// owner's Get and Events do.
func testAdminGetAnyOwner(t *testing.T, e *env) {
	a := e.create(e.onceIn(alice, time.Hour))
	b := e.fired(bob)
	for _, want := range []domain.Alarm{a, b} {
		got, err := e.store.Get(e.ctx, ports.AnyOwner, want.ID)
		if err != nil {
			t.Fatalf("Get(AnyOwner, %s): %v", want.ID, err)
		}
		e.wantAlarm("Get(AnyOwner)", got, e.get(want.Owner, want.ID))
		if got.Owner != want.Owner {
			t.Errorf("Get(AnyOwner, %s).Owner = %q, want %q", want.ID, got.Owner, want.Owner)
		}
		evs, err := e.store.Events(e.ctx, ports.AnyOwner, want.ID, 0)
		if err != nil {
			t.Fatalf("Events(AnyOwner, %s): %v", want.ID, err)
		}
		if own := e.events(want.Owner, want.ID); !slices.Equal(eventTypes(evs), eventTypes(own)) {
			t.Errorf("Events(AnyOwner, %s) = %v, want the owner's view %v", want.ID, eventTypes(evs), eventTypes(own))
		}
	}
	evs, err := e.store.Events(e.ctx, ports.AnyOwner, b.ID, 1)
	if err != nil || len(evs) != 1 || evs[0].Type != domain.EventCreated {
		t.Errorf("Events(AnyOwner, limit 1) = %v, %v; want only created", eventTypes(evs), err)
	}
}

// Unknown ids, well-formed or not, are ErrNotFound for every by-id admin call, and
// deleting them deletes nothing.
func testAdminUnknownID(t *testing.T, e *env) {
	e.createDue(alice)
	for _, id := range []string{newID(), "not-a-uuid", "", "'; DROP TABLE alarms; --"} {
		_, err := e.store.Get(e.ctx, ports.AnyOwner, id)
		wantErr(t, "Get(AnyOwner, "+id+")", err, ports.ErrNotFound)
		_, err = e.store.Events(e.ctx, ports.AnyOwner, id, 0)
		wantErr(t, "Events(AnyOwner, "+id+")", err, ports.ErrNotFound)
		called := false
		_, err = e.store.Mutate(e.ctx, ports.AnyOwner, id, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
			called = true
			return cancelFn(a, now)
		})
		wantErr(t, "Mutate(AnyOwner, "+id+")", err, ports.ErrNotFound)
		if called {
			t.Errorf("Mutate(AnyOwner, %s) ran fn for an alarm that does not exist", id)
		}
		d, err := e.store.DeleteAlarms(e.ctx, []string{id})
		if err != nil || d != (ports.Deleted{}) {
			t.Errorf("DeleteAlarms([%s]) = %+v, %v; want nothing deleted", id, d, err)
		}
	}
	if d, err := e.store.DeleteAlarms(e.ctx, nil); err != nil || d != (ports.Deleted{}) {
		t.Errorf("DeleteAlarms(nil) = %+v, %v; want nothing deleted, no error", d, err)
	}
}

// List with ports.AnyOwner returns every owner's alarms newest first, paged like List: default and
// maximum page sizes, a cursor that continues after the last alarm.
func testAdminListAcrossOwners(t *testing.T, e *env) {
	var all []domain.Alarm
	for i := range 7 {
		owner := alice
		if i%2 == 1 {
			owner = bob
		}
		spec := e.onceIn(owner, time.Duration(i)*time.Minute)
		if i == 3 {
			spec.Label = "" // no label: still listed, with or without a prefix filter of ""
		}
		all = append(all, e.create(spec))
	}
	want := newestFirst(all...)
	for _, limit := range []int{1, 3, 7, 0} {
		if got := alarmIDs(e.adminListAll(ports.ListFilter{Scope: ports.AnyOwner, Limit: limit})); !slices.Equal(got, want) {
			t.Errorf("List(AnyOwner) pages of %d = %v, want %v", limit, got, want)
		}
	}
	as, next := e.adminList(ports.ListFilter{Scope: ports.AnyOwner, Limit: 3})
	if len(as) != 3 || next == "" {
		t.Errorf("first page of 3 = %d alarms, cursor %q; want 3 and a cursor", len(as), next)
	}
	for _, a := range as {
		if a.Owner == "" {
			t.Errorf("List(AnyOwner): alarm %s has no owner", a.ID)
		}
	}
	// More than the maximum page: the page is capped.
	for range ports.MaxListLimit - len(all) + 5 {
		e.create(e.onceIn(alice, time.Hour))
	}
	as, next = e.adminList(ports.ListFilter{Scope: ports.AnyOwner, Limit: ports.MaxListLimit + 100})
	if len(as) != ports.MaxListLimit || next == "" {
		t.Errorf("a page asking for %d = %d alarms, cursor %q; want %d and a cursor", ports.MaxListLimit+100, len(as), next, ports.MaxListLimit)
	}
	if as, _ = e.adminList(ports.ListFilter{Scope: ports.AnyOwner}); len(as) != ports.DefaultListLimit {
		t.Errorf("the default page = %d alarms, want %d", len(as), ports.DefaultListLimit)
	}
}

// Every filter narrows the list, alone and combined, and paging keeps it.
func testAdminListFilters(t *testing.T, e *env) {
	onceA := e.create(e.onceIn(alice, 10*time.Hour))
	cronA := e.create(cronSpec(alice, "0 9 * * *", "UTC"))
	pausedB := e.mutate(bob, e.create(cronSpec(bob, "0 9 * * *", "UTC")).ID, pauseFn)
	firedB := e.fired(bob)
	failedOld := e.failedOnce(alice, "billing:invoice")
	e.clock.Advance(time.Hour)
	cutoff := e.now()
	failedNew := e.failedOnce(bob, "billing:refund")
	failedNewer := e.failedOnce(alice, "mail:digest")

	for _, c := range []struct {
		name string
		f    ports.ListFilter
		want []domain.Alarm
	}{
		{"owner", ports.ListFilter{Scope: ports.OwnedBy(alice)}, []domain.Alarm{onceA, cronA, failedOld, failedNewer}},
		{"status", ports.ListFilter{Scope: ports.AnyOwner, Status: domain.StatusFailed}, []domain.Alarm{failedOld, failedNew, failedNewer}},
		{"kind", ports.ListFilter{Scope: ports.AnyOwner, Kind: domain.KindCron}, []domain.Alarm{cronA, pausedB}},
		{"owner and status", ports.ListFilter{Scope: ports.OwnedBy(bob), Status: domain.StatusPaused}, []domain.Alarm{pausedB}},
		{"owner, kind", ports.ListFilter{Scope: ports.OwnedBy(bob), Kind: domain.KindOnce}, []domain.Alarm{firedB, failedNew}},
		{"label prefix", ports.ListFilter{Scope: ports.AnyOwner, LabelPrefix: "billing:"}, []domain.Alarm{failedOld, failedNew}},
		{"label prefix and owner", ports.ListFilter{Scope: ports.OwnedBy(bob), LabelPrefix: "billing:"}, []domain.Alarm{failedNew}},
		{"failed since", ports.ListFilter{Scope: ports.AnyOwner, FailedSince: cutoff}, []domain.Alarm{failedNew, failedNewer}},
		{"failed since and owner", ports.ListFilter{Scope: ports.OwnedBy(alice), FailedSince: cutoff}, []domain.Alarm{failedNewer}},
		{"nothing matches", ports.ListFilter{Scope: ports.OwnedBy("carol")}, nil},
		{"status and kind that never meet", ports.ListFilter{Scope: ports.AnyOwner, Status: domain.StatusPaused, Kind: domain.KindOnce}, nil},
	} {
		want := newestFirst(c.want...)
		for _, limit := range []int{1, 0} {
			f := c.f
			f.Limit = limit
			if got := alarmIDs(e.adminListAll(f)); !slices.Equal(got, want) {
				t.Errorf("%s (pages of %d): %v, want %v", c.name, limit, got, want)
			}
		}
	}
}

// A label prefix is matched byte for byte: LIKE's wildcards and the escape character in
// it are plain characters.
func testAdminListLabelPrefixLiteral(t *testing.T, e *env) {
	labels := []string{"50%_off", "50xyoff", `a\b`, `a\\b`, "a_b", "axb", "Case", "case"}
	byLabel := map[string]domain.Alarm{}
	for _, l := range labels {
		s := e.onceIn(alice, time.Hour)
		s.Label = l
		byLabel[l] = e.create(s)
	}
	for prefix, want := range map[string][]string{
		"50%":   {"50%_off"},
		"50%_":  {"50%_off"},
		`a\`:    {`a\b`, `a\\b`},
		`a\b`:   {`a\b`},
		"a_":    {"a_b"},
		"Ca":    {"Case"},
		"case":  {"case"},
		"nope%": nil,
	} {
		var as []domain.Alarm
		for _, l := range want {
			as = append(as, byLabel[l])
		}
		if got := alarmIDs(e.adminListAll(ports.ListFilter{Scope: ports.AnyOwner, LabelPrefix: prefix})); !slices.Equal(got, newestFirst(as...)) {
			t.Errorf("label prefix %q matched %v, want the alarms labelled %q", prefix, got, want)
		}
	}
}

// A cursor the store never issued is a ValidationError on "cursor".
func testAdminListBadCursor(t *testing.T, e *env) {
	e.createDue(alice)
	for _, c := range []string{"garbage", "c:zz", "%%%"} {
		_, _, err := e.store.List(e.ctx, ports.ListFilter{Scope: ports.AnyOwner, Cursor: c})
		var ve *domain.ValidationError
		if !errors.As(err, &ve) || ve.Field != "cursor" {
			t.Errorf("List(AnyOwner, cursor %q) = %v, want a ValidationError on cursor", c, err)
		}
	}
}

// AdminMutate is Mutate on any owner's alarm: a retried failed alarm is active, due now
// and counted afresh, its event names who retried it, and a worker still holding a
// lease on a cancelled alarm finds its outcome stale.
func testAdminMutateRetry(t *testing.T, e *env) {
	failed := e.failedOnce(bob, "")
	e.clock.Advance(time.Minute)
	got, err := e.store.Mutate(e.ctx, ports.AnyOwner, failed.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		tr, err := domain.Retry(a, now, "tok_ops")
		return tr, err == nil, err
	})
	if err != nil {
		t.Fatalf("Mutate(AnyOwner, retry): %v", err)
	}
	want := failed
	want.Status, want.NextFireAt, want.FailureCount, want.LastError, want.UpdatedAt = domain.StatusActive, e.now(), 0, "", e.now()
	e.wantAlarm("retried alarm", got, want)
	e.wantStored("retried alarm", want)
	evs := e.events(bob, failed.ID)
	if last := evs[len(evs)-1]; last.Type != domain.EventRetried || last.Message != "by tok_ops" {
		t.Errorf("last event = %s %q, want retried \"by tok_ops\"", last.Type, last.Message)
	}
	claimed := e.claimOnly("w2", time.Minute, failed.ID)

	// An admin cancel of a leased alarm releases the lease; the worker's outcome is stale.
	_, err = e.store.Mutate(e.ctx, ports.AnyOwner, failed.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		tr, changed := domain.AdminCancel(a, now, "tok_ops")
		return tr, changed, nil
	})
	if err != nil {
		t.Fatalf("Mutate(AnyOwner, cancel): %v", err)
	}
	e.applyStale([]domain.Transition{e.fire(claimed)}, failed.ID)
	if a := e.get(bob, failed.ID); a.Status != domain.StatusCancelled || a.Claimed() {
		t.Errorf("after an admin cancel: status %s, claimed by %q; want cancelled, no lease", a.Status, a.ClaimedBy)
	}

	// fn's error comes back as is and nothing changes.
	_, err = e.store.Mutate(e.ctx, ports.AnyOwner, failed.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		tr, err := domain.Retry(a, now, "tok_ops")
		return tr, err == nil, err
	})
	if !errors.Is(err, domain.ErrInvalidState) {
		t.Errorf("retrying a cancelled alarm: %v, want ErrInvalidState", err)
	}
}

// DeleteAlarms deletes the named alarms, whatever their status or lease, with every
// event of theirs, and nothing else; a worker's outcome for a deleted alarm is stale.
func testAdminDelete(t *testing.T, e *env) {
	keep := e.fired(alice)
	active := e.create(e.onceIn(alice, time.Hour))
	leased := e.createDue(bob)
	claimed := e.claimOnly("w1", time.Minute, leased.ID)
	done := e.fired(bob)
	keepEvents := len(e.events(alice, keep.ID))
	events := len(stored(e.events(alice, active.ID))) + len(stored(e.events(bob, leased.ID))) + len(stored(e.events(bob, done.ID)))

	d, err := e.store.DeleteAlarms(e.ctx, []string{active.ID, leased.ID, done.ID, newID()})
	if err != nil {
		t.Fatalf("DeleteAlarms: %v", err)
	}
	if d.Alarms != 3 || d.Events != events {
		t.Errorf("DeleteAlarms = %+v, want 3 alarms and %d events", d, events)
	}
	for _, x := range []domain.Alarm{active, leased, done} {
		if !e.gone(x.Owner, x.ID) {
			t.Errorf("alarm %s (%s) is still there", x.ID, x.Status)
		}
		_, err := e.store.Get(e.ctx, ports.AnyOwner, x.ID)
		wantErr(t, "AdminGet of a deleted alarm", err, ports.ErrNotFound)
	}
	e.applyStale([]domain.Transition{e.fire(claimed)}, leased.ID)
	if evs := e.events(alice, keep.ID); len(evs) != keepEvents {
		t.Errorf("the alarm not deleted has %d events, want %d", len(evs), keepEvents)
	}
	if d, _ := e.store.DeleteAlarms(e.ctx, []string{active.ID}); d != (ports.Deleted{}) {
		t.Errorf("deleting again = %+v, want nothing", d)
	}
}

// CountAlarms counts every status, and as due backlog only active alarms that are due
// and not held by a live lease (an expired lease counts: nobody is delivering it).
func testAdminCount(t *testing.T, e *env) {
	empty, err := e.store.CountAlarms(e.ctx, time.Minute)
	if err != nil {
		t.Fatalf("CountAlarms: %v", err)
	}
	for _, s := range domain.Statuses {
		if n, ok := empty.ByStatus[s]; !ok || n != 0 {
			t.Errorf("empty store: ByStatus[%s] = %d (present %t), want 0 present", s, n, ok)
		}
	}
	if empty.Due != 0 || !empty.OldestDue.IsZero() {
		t.Errorf("empty store: due %d oldest %s, want 0 and zero", empty.Due, fmtTime(empty.OldestDue))
	}

	// Terminal and paused alarms first: claimOnly (in fired, failedOnce) claims every due alarm.
	e.fired(alice)
	e.failedOnce(bob, "")
	e.mutate(bob, e.create(e.onceIn(bob, time.Hour)).ID, cancelFn)
	e.mutate(alice, e.create(cronSpec(alice, "* * * * *", "UTC")).ID, pauseFn)
	leasedLive := e.createDue(bob) // due first, but held by a live lease
	e.claimOnly("w1", time.Minute, leasedLive.ID)
	e.clock.Advance(time.Second)
	oldest := e.createDue(alice) // the oldest due alarm nobody holds
	e.clock.Advance(time.Second)
	e.createDue(bob)
	e.create(e.onceIn(alice, time.Hour)) // not due yet

	c, err := e.store.CountAlarms(e.ctx, time.Minute)
	if err != nil {
		t.Fatalf("CountAlarms: %v", err)
	}
	want := map[domain.Status]int64{domain.StatusActive: 4, domain.StatusPaused: 1, domain.StatusFired: 1, domain.StatusFailed: 1, domain.StatusCancelled: 1}
	for s, n := range want {
		if c.ByStatus[s] != n {
			t.Errorf("ByStatus[%s] = %d, want %d", s, c.ByStatus[s], n)
		}
	}
	if c.Due != 2 || !e.sameTime(c.OldestDue, oldest.NextFireAt) {
		t.Errorf("due %d oldest %s, want 2 (the live lease left out) and %s", c.Due, fmtTime(c.OldestDue), fmtTime(oldest.NextFireAt))
	}
	if !e.sameTime(c.Now, e.now()) {
		t.Errorf("counts taken at %s, want the store's now %s", fmtTime(c.Now), fmtTime(e.now()))
	}

	e.clock.Advance(2 * time.Minute) // the lease has expired: that alarm is backlog again
	if c, _ = e.store.CountAlarms(e.ctx, time.Minute); c.Due != 3 || !e.sameTime(c.OldestDue, leasedLive.NextFireAt) {
		t.Errorf("after the lease expired: due %d oldest %s, want 3 and %s", c.Due, fmtTime(c.OldestDue), fmtTime(leasedLive.NextFireAt))
	}
}
