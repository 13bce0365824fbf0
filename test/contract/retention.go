package contract

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var retentionCases = []testCase{
	{"DeletesExpiredTerminalAlarmsWithTheirEvents", testRetentionDeletesExpired},
	{"NeverDeletesLiveLeasedOrRecent", testRetentionKeepsWhatItMust},
	{"LimitBoundsACall", testRetentionLimit},
	{"TrimEventsByAge", testTrimEventsByAge},
	{"TrimEventsKeepsTheNewest", testTrimEventsKeep},
	{"TrimEventsSweepsInSteps", testTrimEventsSweep},
	{"LeaseIsExclusive", testLeaseExclusive},
	{"LeaseRenewExpireRelease", testLeaseLifecycle},
}

func (e *env) deleteExpired(before time.Time, limit int) ports.Deleted {
	e.t.Helper()
	d, err := e.store.DeleteExpiredAlarms(e.ctx, ports.ExpiredAlarms{Before: before, Limit: limit})
	if err != nil {
		e.t.Fatalf("DeleteExpiredAlarms: %v", err)
	}
	return d
}

func (e *env) trim(p ports.TrimEvents) ports.Trimmed {
	e.t.Helper()
	t, err := e.store.TrimEvents(e.ctx, p)
	if err != nil {
		e.t.Fatalf("TrimEvents(%+v): %v", p, err)
	}
	return t
}

// fired creates a due once alarm and fires it: fired, lease released, two events
// (created, fired) or more.
func (e *env) fired(owner string) domain.Alarm {
	e.t.Helper()
	a := e.createDue(owner)
	e.applyOK(e.fire(e.claimOnly("w1", time.Minute, a.ID)))
	return e.get(owner, a.ID)
}

// gone reports whether the owner's alarm is gone, with its history.
func (e *env) gone(owner, id string) bool {
	e.t.Helper()
	_, err := e.store.Get(e.ctx, ports.OwnedBy(owner), id)
	if err == nil {
		return false
	}
	wantErr(e.t, "Get of a deleted alarm", err, ports.ErrNotFound)
	_, err = e.store.Events(e.ctx, ports.OwnedBy(owner), id, 0)
	wantErr(e.t, "Events of a deleted alarm", err, ports.ErrNotFound)
	return true
}

// Fired, cancelled and failed alarms whose last change is older than the cutoff go,
// and so does every event of theirs.
func testRetentionDeletesExpired(t *testing.T, e *env) {
	f := e.fired(alice)
	c := e.create(e.onceIn(alice, time.Hour))
	c = e.mutate(alice, c.ID, cancelFn)
	spec := e.onceIn(bob, 0)
	spec.MaxFailures = 1
	failed := e.create(spec)
	e.applyOK(e.fail(e.claimOnly("w1", time.Minute, failed.ID), "receiver down"))
	if got := e.get(bob, failed.ID); got.Status != domain.StatusFailed {
		t.Fatalf("setup: alarm is %s, want failed", got.Status)
	}
	events := len(stored(e.events(alice, f.ID))) + len(stored(e.events(alice, c.ID))) + len(stored(e.events(bob, failed.ID)))

	e.clock.Advance(time.Hour)
	d := e.deleteExpired(e.now().Add(-time.Minute), 100)
	if d.Alarms != 3 || d.Events != events {
		t.Errorf("deleted %+v, want 3 alarms and their %d events", d, events)
	}
	for _, x := range []struct{ owner, id string }{{alice, f.ID}, {alice, c.ID}, {bob, failed.ID}} {
		if !e.gone(x.owner, x.id) {
			t.Errorf("alarm %s is still there", x.id)
		}
	}
	if d := e.deleteExpired(e.now(), 100); d != (ports.Deleted{}) {
		t.Errorf("a second call deleted %+v, want nothing", d)
	}
}

// Active and paused alarms, however old, a terminal row still leased (an at-most-once
// advance whose outcome is not applied yet), and terminal alarms changed after the
// cutoff are never deleted; nor are their events.
func testRetentionKeepsWhatItMust(t *testing.T, e *env) {
	active := e.create(e.onceIn(alice, 1000*time.Hour))
	paused := e.create(cronSpec(alice, "0 9 * * *", "UTC"))
	paused = e.mutate(alice, paused.ID, pauseFn)

	amo := e.onceIn(alice, 0)
	amo.Delivery = domain.AtMostOnce
	leased := e.create(amo)
	claimed := e.claimOnly("w1", time.Hour, leased.ID)
	f := domain.Begin(claimed, e.now(), policy)
	if f.Advance == nil {
		t.Fatal("setup: an at-most-once firing has no advance")
	}
	e.applyOK(*f.Advance)
	if got := e.get(alice, leased.ID); got.Status != domain.StatusFired || got.ClaimedBy == "" {
		t.Fatalf("setup: alarm is %s leased by %q, want fired and leased", got.Status, got.ClaimedBy)
	}

	e.clock.Advance(48 * time.Hour)
	recent := e.fired(bob)    // terminal, but changed after the cutoff
	due := e.createDue(alice) // active and due, never claimed

	d := e.deleteExpired(e.now().Add(-time.Hour), 100)
	if d.Alarms != 0 || d.Events != 0 {
		t.Errorf("deleted %+v, want nothing", d)
	}
	for _, a := range []domain.Alarm{active, due, paused, leased} {
		if e.gone(alice, a.ID) {
			t.Errorf("alarm %s (%s) was deleted", a.ID, a.Status)
		}
		if len(e.events(alice, a.ID)) == 0 {
			t.Errorf("alarm %s lost its history", a.ID)
		}
	}
	if e.gone(bob, recent.ID) {
		t.Errorf("an alarm fired after the cutoff was deleted")
	}
}

// A call deletes at most Limit alarms; repeated calls finish the job.
func testRetentionLimit(t *testing.T, e *env) {
	for range 7 {
		a := e.create(e.onceIn(alice, time.Hour))
		e.mutate(alice, a.ID, cancelFn)
	}
	e.clock.Advance(time.Hour)
	total := 0
	for i := 0; ; i++ {
		d := e.deleteExpired(e.now(), 3)
		if d.Alarms > 3 {
			t.Fatalf("call %d deleted %d alarms, limit 3", i, d.Alarms)
		}
		total += d.Alarms
		if d.Alarms < 3 {
			break
		}
		if i > 5 {
			t.Fatal("repeated calls never finish")
		}
	}
	if total != 7 {
		t.Errorf("deleted %d alarms in all, want 7", total)
	}
	if left, _ := e.list(alice, ports.ListFilter{}); len(left) != 0 {
		t.Errorf("%d alarms left", len(left))
	}
}

// sweep runs TrimEvents steps of n alarms until the sweep is complete and returns the
// events deleted.
func (e *env) sweep(n int, before time.Time, keep int) int {
	e.t.Helper()
	total, after := 0, ""
	for i := 0; ; i++ {
		r := e.trim(ports.TrimEvents{After: after, Alarms: n, Before: before, Keep: keep})
		total += r.Events
		if r.Next == "" {
			return total
		}
		if r.Next <= after {
			e.t.Fatalf("sweep cursor went from %q to %q", after, r.Next)
		}
		after = r.Next
		if i > 1000 {
			e.t.Fatal("the sweep never completes")
		}
	}
}

// failTimes fails a claimed cron alarm's occurrence n times, each an attempt-failed
// event at the clock's now (advanced a minute each), so the series collects history.
func (e *env) failTimes(a domain.Alarm, n int) {
	e.t.Helper()
	for i := range n {
		e.clock.Advance(time.Minute)
		e.mutate(a.Owner, a.ID, triggerFn)
		claimed := e.claimOnly("w1", time.Minute, a.ID)
		e.applyOK(e.fail(claimed, fmt.Sprintf("failure %d", i)))
	}
}

// Events older than the cutoff go, for a live alarm too; newer ones stay.
func testTrimEventsByAge(t *testing.T, e *env) {
	a := e.create(cronSpec(alice, "0 9 * * *", "UTC"))
	e.failTimes(a, 2) // old events
	e.clock.Advance(2 * time.Hour)
	cutoff := e.now()
	e.failTimes(a, 2) // newer events
	before := stored(e.events(alice, a.ID))

	deleted := e.sweep(10, cutoff, 0)
	after := stored(e.events(alice, a.ID))
	var want []domain.Event
	for _, ev := range before {
		if !ev.At.Before(cutoff) {
			want = append(want, ev)
		}
	}
	if deleted != len(before)-len(want) || len(after) != len(want) {
		t.Fatalf("deleted %d, %d events left; want %d deleted, %d left", deleted, len(after), len(before)-len(want), len(want))
	}
	for i := range want {
		if after[i].ID != want[i].ID {
			t.Errorf("event %d is %d, want %d", i, after[i].ID, want[i].ID)
		}
	}
	if e.gone(alice, a.ID) {
		t.Error("trimming events deleted the alarm")
	}
}

// With Keep, each alarm keeps exactly its Keep newest events; alarms with fewer lose
// nothing.
func testTrimEventsKeep(t *testing.T, e *env) {
	busy := e.create(cronSpec(alice, "0 9 * * *", "UTC"))
	e.failTimes(busy, 4)
	quiet := e.create(cronSpec(bob, "0 9 * * *", "UTC"))
	all := stored(e.events(alice, busy.ID))
	quietBefore := e.events(bob, quiet.ID)
	const keep = 3
	if len(all) <= keep {
		t.Fatalf("setup: %d events, want more than %d", len(all), keep)
	}

	deleted := e.sweep(1, time.Time{}, keep) // nothing is too old; only the cap deletes
	got := stored(e.events(alice, busy.ID))
	if deleted != len(all)-keep || len(got) != keep {
		t.Fatalf("deleted %d, %d left; want %d deleted, %d left", deleted, len(got), len(all)-keep, keep)
	}
	for i, ev := range all[len(all)-keep:] {
		if got[i].ID != ev.ID {
			t.Errorf("kept event %d is %d, want %d (the newest)", i, got[i].ID, ev.ID)
		}
	}
	if q := e.events(bob, quiet.ID); len(q) != len(quietBefore) {
		t.Errorf("an alarm with %d events kept %d", len(quietBefore), len(q))
	}
}

// A sweep in steps of a few alarms covers every alarm exactly once, in id order, and
// the cursor says when it is done.
func testTrimEventsSweep(t *testing.T, e *env) {
	var ids []string
	for range 5 {
		a := e.create(e.onceIn(alice, time.Hour))
		e.mutate(alice, a.ID, cancelFn) // one stored event each
		ids = append(ids, a.ID)
	}
	e.clock.Advance(time.Hour)
	if deleted := e.sweep(2, e.now(), 0); deleted != 5 {
		t.Errorf("a sweep in steps of 2 deleted %d events, want the 5 cancelled events", deleted)
	}
	for _, id := range ids {
		if n := len(stored(e.events(alice, id))); n != 0 {
			t.Errorf("alarm %s kept %d events older than the cutoff", id, n)
		}
	}
	if r := e.trim(ports.TrimEvents{Alarms: 10, Before: e.now()}); r.Next != "" || r.Events != 0 {
		t.Errorf("a step covering every alarm returned %+v, want nothing deleted and no cursor", r)
	}
}

func (e *env) acquire(name, holder string, ttl time.Duration) bool {
	e.t.Helper()
	ok, err := e.store.AcquireLease(e.ctx, name, holder, ttl)
	if err != nil {
		e.t.Fatalf("AcquireLease(%s, %s): %v", name, holder, err)
	}
	return ok
}

// Of many holders asking at once for a free lease, exactly one gets it.
func testLeaseExclusive(t *testing.T, e *env) {
	const n = 8
	var wg sync.WaitGroup
	got := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = e.store.AcquireLease(e.ctx, "retention", fmt.Sprintf("node-%d", i), time.Minute)
		}()
	}
	wg.Wait()
	holders := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("AcquireLease: %v", errs[i])
		}
		if got[i] {
			holders++
		}
	}
	if holders != 1 {
		t.Errorf("%d holders of one lease, want exactly 1", holders)
	}
	if !e.acquire("other-chore", "node-0", time.Minute) {
		t.Error("a lease of another name was not free")
	}
}

// The holder renews its lease; another node gets it only once it expires or is
// released.
func testLeaseLifecycle(t *testing.T, e *env) {
	if !e.acquire("retention", "a", time.Minute) {
		t.Fatal("a free lease was refused")
	}
	if e.acquire("retention", "b", time.Minute) {
		t.Fatal("b took a lease a holds")
	}
	e.clock.Advance(50 * time.Second)
	if !e.acquire("retention", "a", time.Minute) {
		t.Fatal("the holder could not renew its lease")
	}
	e.clock.Advance(50 * time.Second) // 100 s after the first take, 50 s after the renewal
	if e.acquire("retention", "b", time.Minute) {
		t.Fatal("b took a renewed lease before it expired")
	}
	e.clock.Advance(11 * time.Second)
	if !e.acquire("retention", "b", time.Minute) {
		t.Fatal("b could not take an expired lease")
	}
	if e.acquire("retention", "a", time.Minute) {
		t.Fatal("a took back a lease b holds")
	}
	if err := e.store.ReleaseLease(e.ctx, "retention", "a"); err != nil {
		t.Fatal(err)
	}
	if e.acquire("retention", "c", time.Minute) {
		t.Fatal("a release by a non-holder freed the lease")
	}
	if err := e.store.ReleaseLease(e.ctx, "retention", "b"); err != nil {
		t.Fatal(err)
	}
	if !e.acquire("retention", "c", time.Minute) {
		t.Fatal("a released lease was not free")
	}
}
