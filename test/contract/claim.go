package contract

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

var claimCases = []testCase{
	{"OnlyClaimable", testClaimOnlyClaimable},
	{"OldestDueFirst", testClaimOldestDueFirst},
	{"StampsLease", testClaimStampsLease},
	{"ExpiredLeaseReclaimable", testClaimExpiredLease},
	{"NothingDue", testClaimNothingDue},
	{"AcrossOwners", testClaimAcrossOwners},
	{"FillsTheBatch", testClaimFillsTheBatch},
	{"NextDueNone", testNextDueNone},
	{"NextDueEarliest", testNextDueEarliest},
	{"NextDueIgnoresInactive", testNextDueIgnoresInactive},
}

// Only active, due, unleased alarms are claimed: not paused, fired, failed or
// cancelled ones, not future ones, not those under another worker's live lease.
func testClaimOnlyClaimable(t *testing.T, e *env) {
	leased := e.createDue(alice)
	e.claimOnly("other", longLease, leased.ID)

	cancelled := e.createDue(alice)
	e.mutate(alice, cancelled.ID, cancelFn)

	// Fired and failed through unfenced outcomes (nobody claimed them).
	fired := e.createDue(alice)
	e.applyOK(e.fire(fired))
	s := e.onceIn(alice, 0)
	s.MaxFailures = 1
	failed := e.create(s)
	e.applyOK(e.fail(failed, "gone"))

	paused := e.create(cronSpec(alice, "@every 1m", ""))
	e.mutate(alice, paused.ID, pauseFn)

	future := e.create(e.onceIn(alice, time.Hour))
	due := e.createDue(alice)

	e.clock.Advance(2 * time.Minute) // the paused series would be due by now
	c := e.claim("w1", longLease, 100)
	if len(c.Alarms) != 1 || c.Alarms[0].ID != due.ID {
		t.Errorf("ClaimDue = %v, want only the due alarm %s (not leased %s, cancelled %s, fired %s, failed %s, paused %s, future %s)",
			alarmIDs(c.Alarms), due.ID, leased.ID, cancelled.ID, fired.ID, failed.ID, paused.ID, future.ID)
	}
	if got := e.get(alice, leased.ID); got.ClaimedBy != "other" {
		t.Errorf("the other worker's lease moved to %q", got.ClaimedBy)
	}
}

// Claims come oldest next_fire_at first (not by id or creation order), at most batch
// at a time, until none is left.
func testClaimOldestDueFirst(t *testing.T, e *env) {
	var byDue []domain.Alarm // oldest due first
	for i := 1; i <= 5; i++ {
		// Created newest-due first, so id order is the reverse of due order.
		a := e.create(e.onceIn(alice, -time.Duration(i)*time.Minute))
		byDue = append([]domain.Alarm{a}, byDue...)
	}
	first := e.claim("w1", longLease, 3)
	wantIDs(t, "first claim (batch 3)", first.Alarms, byDue[:3])
	second := e.claim("w2", longLease, 3)
	wantIDs(t, "second claim (batch 3)", second.Alarms, byDue[3:])
	e.claimNone("w3", longLease)
}

// A claim stamps claimed_by and claimed_at = the store's now, returns the alarms with
// exactly the stored lease (so fencing on them works), and reports its now.
func testClaimStampsLease(t *testing.T, e *env) {
	a := e.createDue(alice)
	e.clock.Advance(1500 * time.Millisecond)
	c := e.claim("w1", longLease, 10)
	if len(c.Alarms) != 1 {
		t.Fatalf("ClaimDue = %v, want [%s]", alarmIDs(c.Alarms), a.ID)
	}
	e.wantTime("Claimed.Now", c.Now, e.now())

	want := a
	want.ClaimedBy, want.ClaimedAt = "w1", e.now()
	e.wantAlarm("claimed alarm", c.Alarms[0], want)
	stored := e.get(alice, a.ID)
	e.wantAlarm("stored after claim", stored, want)
	e.sameLease("stored lease", stored, c.Alarms[0])
}

// A lease that has run out (claimed_at older than now - lease) is claimable again, by
// anyone; a live one is not, not even by its holder.
func testClaimExpiredLease(t *testing.T, e *env) {
	a := e.createDue(alice)
	e.claimOnly("w1", shortLease, a.ID)
	e.claimNone("w2", shortLease)
	e.claimNone("w1", shortLease)

	e.clock.Advance(shortLease - time.Second)
	e.claimNone("w2", shortLease)

	e.clock.Advance(2 * time.Second)
	got := e.claimOnly("w2", shortLease, a.ID)
	if got.ClaimedBy != "w2" {
		t.Errorf("re-claimed by %q, want w2", got.ClaimedBy)
	}
	e.wantTime("new claimed_at", got.ClaimedAt, e.now())
	e.sameLease("stored lease", e.get(alice, a.ID), got)
}

// With nothing due a claim returns no alarms and no error.
func testClaimNothingDue(t *testing.T, e *env) {
	c := e.claim("w1", longLease, 10)
	if len(c.Alarms) != 0 {
		t.Errorf("ClaimDue on an empty store = %v", alarmIDs(c.Alarms))
	}
	e.wantTime("Claimed.Now on an empty store", c.Now, e.now())

	e.create(e.onceIn(alice, time.Minute))
	e.claimNone("w1", longLease)
}

// Claims are not owner-scoped: the dispatcher serves everyone.
func testClaimAcrossOwners(t *testing.T, e *env) {
	a := e.createDue(alice)
	b := e.createDue(bob)
	c := e.claim("w1", longLease, 10)
	if !sameIDSet(alarmIDs(c.Alarms), []string{a.ID, b.ID}) {
		t.Errorf("ClaimDue = %v, want alice's %s and bob's %s", alarmIDs(c.Alarms), a.ID, b.ID)
	}
}

// A plain claim takes Batch alarms whenever that many are claimable, and of each owner
// its oldest (ports.ClaimParams.Fair). Across owners a store may take the oldest first
// or share the batch between lanes, so the cases hold either way: quiet owners' alarms
// older than a backlog are all taken and the backlog gives the rest, its oldest; then,
// with newer quiet alarms beside the backlog's rest, a claim is full and takes of each
// owner its oldest, whichever owners it serves; and a last claim takes what is left.
func testClaimFillsTheBatch(t *testing.T, e *env) {
	var quiet []domain.Alarm
	for i := range 5 {
		quiet = append(quiet, e.create(e.onceIn(fmt.Sprintf("q%d", i), -2*time.Hour)))
	}
	backlog := e.createBacklog("burst", 30, -time.Hour)
	first := e.claim("w1", longLease, 20)
	if !sameIDSet(alarmIDs(first.Alarms), alarmIDs(slices.Concat(quiet, backlog[:15]))) {
		t.Errorf("a plain claim of 20 = %v, want the 5 quiet owners' older alarms and the backlog's 15 oldest", countOwners(first.Alarms))
	}

	newer := map[string]domain.Alarm{}
	for i := range 5 {
		a := e.create(e.onceIn(fmt.Sprintf("q%d", i), -time.Minute))
		newer[a.Owner] = a
	}
	second := e.claim("w2", longLease, 10)
	if len(second.Alarms) != 10 {
		t.Errorf("a plain claim of 10 with 20 claimable took %d", len(second.Alarms))
	}
	var fromBacklog []domain.Alarm
	for _, a := range second.Alarms {
		switch {
		case a.Owner == "burst":
			fromBacklog = append(fromBacklog, a)
		case newer[a.Owner].ID != a.ID:
			t.Errorf("the plain claim took %s of %s, not that owner's claimable alarm %s", a.ID, a.Owner, newer[a.Owner].ID)
		}
	}
	wantIDs(t, "the backlog's alarms in the second claim (its oldest left)", fromBacklog, backlog[15:15+len(fromBacklog)])
	if rest := e.claim("w3", longLease, 100); len(rest.Alarms) != 10 {
		t.Errorf("a last plain claim took %d alarms, want the 10 left", len(rest.Alarms))
	}
}

func (e *env) nextDue() (time.Time, bool) {
	e.t.Helper()
	at, ok, err := e.store.NextDue(e.ctx)
	if err != nil {
		e.t.Fatalf("NextDue: %v", err)
	}
	return at, ok
}

// NextDue with no active alarm says false.
func testNextDueNone(t *testing.T, e *env) {
	if at, ok := e.nextDue(); ok {
		t.Errorf("NextDue on an empty store = %s, true; want false", fmtTime(at))
	}
	a := e.createDue(alice)
	e.applyOK(e.fire(a)) // now fired: terminal
	if at, ok := e.nextDue(); ok {
		t.Errorf("NextDue with only a fired alarm = %s, true; want false", fmtTime(at))
	}
}

// NextDue is the earliest next_fire_at among active, unclaimed alarms, due or not.
func testNextDueEarliest(t *testing.T, e *env) {
	e.create(e.onceIn(alice, 10*time.Minute))
	soon := e.create(e.onceIn(bob, 5*time.Minute))
	e.create(e.onceIn(alice, 20*time.Minute))
	at, ok := e.nextDue()
	if !ok {
		t.Fatal("NextDue = false with three active alarms")
	}
	e.wantTime("NextDue", at, soon.NextFireAt)

	overdue := e.create(e.onceIn(alice, -time.Minute))
	at, _ = e.nextDue()
	e.wantTime("NextDue with an overdue alarm", at, overdue.NextFireAt)

	// A leased alarm is in flight: NextDue leaves it out.
	e.claimOnly("w1", longLease, overdue.ID)
	at, _ = e.nextDue()
	e.wantTime("NextDue with the overdue alarm leased", at, soon.NextFireAt)
}

// Paused and terminal alarms do not count, however early their next_fire_at.
func testNextDueIgnoresInactive(t *testing.T, e *env) {
	paused := e.create(cronSpec(alice, "@every 1m", ""))
	e.mutate(alice, paused.ID, pauseFn)
	cancelled := e.create(e.onceIn(alice, 2*time.Minute))
	e.mutate(alice, cancelled.ID, cancelFn)
	active := e.create(e.onceIn(alice, time.Hour))

	at, ok := e.nextDue()
	if !ok {
		t.Fatal("NextDue = false with one active alarm")
	}
	e.wantTime("NextDue", at, active.NextFireAt)
}
