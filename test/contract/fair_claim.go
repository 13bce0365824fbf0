package contract

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// The suite cannot know a store's lane of an owner (each store hashes owners its own
// way), so these cases hold for any lanes: where two owners may share one, a case
// either allows for it in its bounds or tells from what the claims return which way
// it went, and checks that.

var fairClaimCases = []testCase{
	{"SpreadOverLanes", testFairSpread},
	{"BurstDoesNotHoldBackOthers", testFairBurst},
	{"AloneTakesTheBatch", testFairAlone},
	{"RotatesFromNext", testFairRotation},
	{"NothingDue", testFairNothingDue},
	{"OnlyClaimable", testFairOnlyClaimable},
	{"ExpiredLeaseReclaimable", testFairExpiredLease},
	{"ClaimersClaimEachOnce", testFairConcurrent},
	{"Validation", testFairValidation},
}

func fairParams(worker string, lease time.Duration, batch, start, perLane int) ports.ClaimParams {
	return ports.ClaimParams{Worker: worker, Lease: lease, Batch: batch, Fair: &ports.FairClaim{Start: start, PerLane: perLane}}
}

// fairClaim makes a fair claim and fails the test unless it keeps what every fair
// claim promises (fairViolation) and stamps the lease at the clock's now.
func (e *env) fairClaim(worker string, lease time.Duration, batch, start, perLane int) ports.Claimed {
	e.t.Helper()
	p := fairParams(worker, lease, batch, start, perLane)
	c, err := e.store.ClaimDue(e.ctx, p)
	if err != nil {
		e.t.Fatalf("fair ClaimDue(%s, batch %d, start %d, per lane %d): %v", worker, batch, start, perLane, err)
	}
	if v := fairViolation(c, p); v != "" {
		e.t.Fatalf("fair ClaimDue(%s, batch %d, start %d, per lane %d): %s", worker, batch, start, perLane, v)
	}
	e.wantTime("Claimed.Now", c.Now, e.now())
	for _, a := range c.Alarms {
		e.wantTime("claimed_at of "+a.ID, a.ClaimedAt, c.Now)
	}
	return c
}

// fairViolation says what in c breaks a promise that holds whatever the lanes, or ""
// when nothing does: at most Batch alarms, at most PerLane of one owner (an owner's
// alarms share a lane), oldest due first, each leased to the worker; Next a lane, and
// Start+1 when the batch did not fill (every lane was visited); Capped lanes each gave
// PerLane, but for the one the batch filled up in, which gave at least one.
func fairViolation(c ports.Claimed, p ports.ClaimParams) string {
	n, f := len(c.Alarms), p.Fair
	perOwner := map[string]int{}
	for i, a := range c.Alarms {
		if a.ClaimedBy != p.Worker {
			return fmt.Sprintf("alarm %s carries the lease of %q, want %q", a.ID, a.ClaimedBy, p.Worker)
		}
		if i > 0 && a.NextFireAt.Before(c.Alarms[i-1].NextFireAt) {
			return fmt.Sprintf("alarms not oldest due first: %s (due %s) after %s (due %s)",
				a.ID, fmtTime(a.NextFireAt), c.Alarms[i-1].ID, fmtTime(c.Alarms[i-1].NextFireAt))
		}
		if perOwner[a.Owner]++; perOwner[a.Owner] > f.PerLane {
			return fmt.Sprintf("more than PerLane %d alarms of owner %q", f.PerLane, a.Owner)
		}
	}
	switch {
	case n > p.Batch:
		return fmt.Sprintf("%d alarms for a batch of %d", n, p.Batch)
	case c.Next < 0 || c.Next >= ports.Lanes:
		return fmt.Sprintf("Next = %d, not a lane", c.Next)
	case c.Capped < 0 || c.Capped > n:
		return fmt.Sprintf("Capped = %d with %d alarms taken", c.Capped, n)
	case n < p.Batch && c.Next != (f.Start+1)%ports.Lanes:
		return fmt.Sprintf("the batch did not fill (%d of %d) yet Next = %d, want Start+1 = %d", n, p.Batch, c.Next, (f.Start+1)%ports.Lanes)
	case n < p.Batch && c.Capped*f.PerLane > n:
		return fmt.Sprintf("the batch did not fill, yet Capped = %d lanes of %d each make more than the %d taken", c.Capped, f.PerLane, n)
	case n == p.Batch && n > 0 && (c.Capped < 1 || (c.Capped-1)*f.PerLane+1 > n):
		return fmt.Sprintf("the batch filled (%d) yet Capped = %d (PerLane %d)", n, c.Capped, f.PerLane)
	}
	return ""
}

// countOwners counts the alarms of each owner.
func countOwners(as []domain.Alarm) map[string]int {
	n := map[string]int{}
	for _, a := range as {
		n[a.Owner]++
	}
	return n
}

// createBacklog creates n once alarms of owner due one second apart from now+from on,
// and returns them oldest due first.
func (e *env) createBacklog(owner string, n int, from time.Duration) []domain.Alarm {
	e.t.Helper()
	as := make([]domain.Alarm, n)
	for i := range as {
		as[i] = e.create(e.onceIn(owner, from+time.Duration(i)*time.Second))
	}
	return as
}

// maxSpreadClaims bounds the fair claims of PerLane 1 that take 64 owners whose names
// differ in one character: a lane hash that needs more put 9 of them in one lane.
const maxSpreadClaims = 8

// With one due alarm for each of 64 owners, a claim of PerLane 1 takes one from every
// lane that has any: at least 40 (the lanes spread owners that differ in one
// character), every one capped. Claims from each Next then take the rest, never more
// than the one before (the lanes with k+1 owners are among those with k), each alarm
// exactly once, in a few claims.
func testFairSpread(t *testing.T, e *env) {
	for i := range ports.Lanes { // due one second apart, so the claims' order is checked
		e.create(e.onceIn(fmt.Sprintf("owner-%02d", i), -time.Duration(i)*time.Second))
	}
	first := e.fairClaim("w1", longLease, ports.Lanes, 0, 1)
	if len(first.Alarms) < 40 {
		t.Errorf("a claim of PerLane 1 over 64 owners took %d alarms, want >= 40 (owners spread over at least 40 lanes): %v",
			len(first.Alarms), countOwners(first.Alarms))
	}
	if first.Capped != len(first.Alarms) {
		t.Errorf("Capped = %d, want %d: with PerLane 1 every lane that gave an alarm gave PerLane", first.Capped, len(first.Alarms))
	}
	taken := countOwners(first.Alarms)
	last, next := len(first.Alarms), first.Next
	for claims := 1; len(taken) < ports.Lanes; claims++ {
		if claims == maxSpreadClaims {
			t.Fatalf("%d fair claims of PerLane 1 took %d of the 64 owners' alarms, want all", claims, len(taken))
		}
		c := e.fairClaim("w1", longLease, ports.Lanes, next, 1)
		if len(c.Alarms) == 0 || len(c.Alarms) > last {
			t.Fatalf("fair claim %d took %d alarms after %d, want 1..%d (%d of 64 taken so far)", claims+1, len(c.Alarms), last, last, len(taken))
		}
		for owner := range countOwners(c.Alarms) {
			if taken[owner]++; taken[owner] > 1 {
				t.Errorf("owner %s's one alarm was claimed twice", owner)
			}
		}
		last, next = len(c.Alarms), c.Next
	}
	if c := e.fairClaim("w1", longLease, ports.Lanes, next, 1); len(c.Alarms) != 0 {
		t.Errorf("a fair claim after all 64 were taken returned %v", alarmIDs(c.Alarms))
	}
}

// One owner's backlog, older than everything else, takes PerLane of a fair claim (its
// oldest) and the other owners, one alarm each, the rest: all of them but one that
// may share the burst's lane (the batch of 20 holds them all, so it cannot fill before
// the burst's lane is visited). The burst's lane is capped.
func testFairBurst(t *testing.T, e *env) {
	burst := e.createBacklog("burst", 50, -time.Hour)
	quiet := make([]domain.Alarm, 16)
	for i := range quiet {
		quiet[i] = e.create(e.onceIn(fmt.Sprintf("q%02d", i), -time.Minute))
	}
	c := e.fairClaim("w1", longLease, 20, 0, 4)
	var fromBurst []domain.Alarm
	for _, a := range c.Alarms {
		if a.Owner == "burst" {
			fromBurst = append(fromBurst, a)
		}
		e.sameLease("stored lease of "+a.ID, e.get(a.Owner, a.ID), a)
	}
	wantIDs(t, "the burst's alarms in a fair claim of PerLane 4 (its 4 oldest)", fromBurst, burst[:4])
	if n := len(c.Alarms) - len(fromBurst); n < len(quiet)-1 {
		t.Errorf("a fair claim took %d of the %d quiet owners' alarms, want >= %d (only one may share the burst's lane): %v",
			n, len(quiet), len(quiet)-1, countOwners(c.Alarms))
	}
	if c.Capped < 1 {
		t.Errorf("Capped = %d, want >= 1: the burst's lane gave PerLane", c.Capped)
	}
}

// An owner alone gets whole batches, oldest due first, however small PerLane's share
// would be beside others: here PerLane is the batch, and the batch fills in the
// owner's lane, so Next is the lane after it each time and one lane is capped. The
// last claim does not fill: Next is Start+1 and nothing is capped.
func testFairAlone(t *testing.T, e *env) {
	burst := e.createBacklog("burst", 50, -time.Hour)
	first := e.fairClaim("w1", longLease, 20, 0, 20)
	wantIDs(t, "first fair claim of 20", first.Alarms, burst[:20])
	if first.Capped != 1 {
		t.Errorf("first claim: Capped = %d, want 1 (the lane the batch filled up in)", first.Capped)
	}
	second := e.fairClaim("w1", longLease, 20, first.Next, 20)
	wantIDs(t, "second fair claim of 20", second.Alarms, burst[20:40])
	if second.Next != first.Next || second.Capped != 1 {
		t.Errorf("second claim: Next, Capped = %d, %d; want %d, 1 (the batch filled in the same lane again)",
			second.Next, second.Capped, first.Next)
	}
	third := e.fairClaim("w1", longLease, 20, second.Next, 20)
	wantIDs(t, "third fair claim of 20", third.Alarms, burst[40:])
	if third.Capped != 0 {
		t.Errorf("third claim: Capped = %d, want 0 (its lane gave 10 of PerLane 20)", third.Capped)
	}
}

// Two owners with backlogs, claimed from each Next with PerLane = Batch: in distinct
// lanes each claim serves one owner, and the second the other one, whose backlog is
// younger; in one shared lane they are served first come first served, and the
// second claim holds the end of the older backlog and the start of the younger.
// Which way it went shows in the second claim. Then claims from each Next take the
// rest, each alarm once.
func testFairRotation(t *testing.T, e *env) {
	older := e.createBacklog("alpha", 15, -2*time.Hour)
	younger := e.createBacklog("beta", 30, -time.Hour)
	first := e.fairClaim("w1", longLease, 10, 0, 10)
	second := e.fairClaim("w1", longLease, 10, first.Next, 10)
	if len(countOwners(first.Alarms)) != 1 {
		t.Fatalf("a filled fair claim of PerLane = Batch served %v, want one owner (one lane)", countOwners(first.Alarms))
	}
	if len(countOwners(second.Alarms)) == 2 { // one lane: first come first served
		wantIDs(t, "two claims over owners sharing a lane", slices.Concat(first.Alarms, second.Alarms),
			slices.Concat(older, younger[:5]))
		if second.Next != first.Next {
			t.Errorf("second claim: Next = %d, want %d (the batch filled in the same lane)", second.Next, first.Next)
		}
	} else {
		of := map[string][]domain.Alarm{"alpha": older, "beta": younger}
		one, other := first.Alarms[0].Owner, "beta"
		if one == "beta" {
			other = "alpha"
		}
		wantIDs(t, "first claim (one owner's oldest)", first.Alarms, of[one][:10])
		wantIDs(t, "second claim (the other owner's oldest)", second.Alarms, of[other][:10])
		if second.Next == first.Next {
			t.Errorf("second claim: Next = %d, the same as the first's, though it filled in another lane", second.Next)
		}
	}

	taken := map[string]int{}
	for _, a := range slices.Concat(first.Alarms, second.Alarms) {
		taken[a.ID]++
	}
	for next, claims := second.Next, 2; len(taken) < len(older)+len(younger); claims++ {
		if claims == 8 {
			t.Fatalf("%d fair claims of 10 took %d of 45 alarms", claims, len(taken))
		}
		c := e.fairClaim("w1", longLease, 10, next, 10)
		if len(c.Alarms) == 0 {
			t.Fatalf("fair claim %d found nothing with %d of 45 alarms taken", claims+1, len(taken))
		}
		for _, a := range c.Alarms {
			if taken[a.ID]++; taken[a.ID] > 1 {
				t.Errorf("alarm %s claimed twice", a.ID)
			}
		}
		next = c.Next
	}
}

// With nothing due a fair claim takes nothing, visits every lane and says to start at
// the next one (Start+1, wrapping after the last lane); nothing is capped.
func testFairNothingDue(t *testing.T, e *env) {
	e.create(e.onceIn(alice, time.Minute))
	for _, start := range []int{0, 17, ports.Lanes - 1} {
		c := e.fairClaim("w1", longLease, 10, start, 2)
		if len(c.Alarms) != 0 || c.Next != (start+1)%ports.Lanes || c.Capped != 0 {
			t.Errorf("fair claim from lane %d with nothing due = %v, Next %d, Capped %d; want none, %d, 0",
				start, alarmIDs(c.Alarms), c.Next, c.Capped, (start+1)%ports.Lanes)
		}
	}
}

// A fair claim takes what a plain claim may take, and nothing else: not an alarm under
// another worker's live lease, not a cancelled, fired, paused or future one.
func testFairOnlyClaimable(t *testing.T, e *env) {
	leased := e.createDue("o1")
	e.claimOnly("other", longLease, leased.ID)
	cancelled := e.createDue("o2")
	e.mutate("o2", cancelled.ID, cancelFn)
	fired := e.createDue("o3")
	e.applyOK(e.fire(fired))
	paused := e.create(cronSpec("o4", "@every 1m", ""))
	e.mutate("o4", paused.ID, pauseFn)
	future := e.create(e.onceIn("o5", time.Hour))
	due := e.createDue("o6")

	e.clock.Advance(2 * time.Minute) // the paused series would be due by now
	c := e.fairClaim("w1", longLease, 100, 0, 100)
	if len(c.Alarms) != 1 || c.Alarms[0].ID != due.ID {
		t.Errorf("fair ClaimDue = %v, want only the due alarm %s (not leased %s, cancelled %s, fired %s, paused %s, future %s)",
			alarmIDs(c.Alarms), due.ID, leased.ID, cancelled.ID, fired.ID, paused.ID, future.ID)
	}
	if got := e.get("o1", leased.ID); got.ClaimedBy != "other" {
		t.Errorf("the other worker's lease moved to %q", got.ClaimedBy)
	}
}

// A live lease keeps an alarm from fair claims, even its holder's; an expired one
// does not, and the new claim's lease is stored exactly as returned.
func testFairExpiredLease(t *testing.T, e *env) {
	a := e.createDue(alice)
	if c := e.fairClaim("w1", shortLease, 10, 0, 10); len(c.Alarms) != 1 || c.Alarms[0].ID != a.ID {
		t.Fatalf("fair ClaimDue = %v, want [%s]", alarmIDs(c.Alarms), a.ID)
	}
	for _, w := range []string{"w2", "w1"} {
		if c := e.fairClaim(w, shortLease, 10, 0, 10); len(c.Alarms) != 0 {
			t.Errorf("fair ClaimDue(%s) under a live lease = %v, want nothing", w, alarmIDs(c.Alarms))
		}
	}
	e.clock.Advance(shortLease - time.Second)
	if c := e.fairClaim("w2", shortLease, 10, 0, 10); len(c.Alarms) != 0 {
		t.Errorf("fair ClaimDue a second before the lease runs out = %v, want nothing", alarmIDs(c.Alarms))
	}
	e.clock.Advance(2 * time.Second)
	c := e.fairClaim("w2", shortLease, 10, 0, 10)
	if len(c.Alarms) != 1 || c.Alarms[0].ID != a.ID {
		t.Fatalf("fair ClaimDue after the lease ran out = %v, want [%s]", alarmIDs(c.Alarms), a.ID)
	}
	e.sameLease("stored lease", e.get(alice, a.ID), c.Alarms[0])
}

// Four concurrent fair claimers, each from its own Next with small batches, over 300
// due alarms of five owners: each claimed and fired exactly once, none left.
func testFairConcurrent(t *testing.T, e *env) {
	var all []domain.Alarm
	for i := range 5 {
		all = append(all, e.createDueMany(fmt.Sprintf("owner-%d", i), 60)...)
	}
	tally := newClaimTally()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := fairParams(fmt.Sprintf("w%d", w), longLease, 7, w*16, 3)
			if err := drain(e.ctx, e.store, e.clock, p, tally); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, a := range all {
		if n, s := tally.applied[a.ID], tally.stale[a.ID]; n != 1 || s != 0 {
			t.Errorf("alarm %s of %s: fired %d times, %d stale outcomes; want fired once, none stale", a.ID, a.Owner, n, s)
		}
	}
	if c := e.fairClaim("late", longLease, 100, 0, 100); len(c.Alarms) != 0 {
		t.Errorf("fair ClaimDue after the claimers finished = %v, want nothing", alarmIDs(c.Alarms))
	}
}

// A Start that is not a lane, or a PerLane below 1, is an error (not a panic), and
// claims nothing.
func testFairValidation(t *testing.T, e *env) {
	a := e.createDue(alice)
	for _, f := range []ports.FairClaim{
		{Start: -1, PerLane: 1}, {Start: ports.Lanes, PerLane: 1}, {Start: 1000, PerLane: 1},
		{Start: 0, PerLane: 0}, {Start: 5, PerLane: -3},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("fair ClaimDue with %+v panicked: %v", f, r)
				}
			}()
			c, err := e.store.ClaimDue(e.ctx, ports.ClaimParams{Worker: "w1", Lease: longLease, Batch: 10, Fair: &f})
			if err == nil {
				t.Errorf("fair ClaimDue with %+v = %v, nil; want an error", f, alarmIDs(c.Alarms))
			}
		}()
	}
	e.claimOnly("w2", longLease, a.ID) // nothing was leased by the refused claims
}
