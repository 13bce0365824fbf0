package contract

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var concurrencyCases = []testCase{
	{"ClaimersClaimEachOnce", testConcurrentClaimers},
	{"ClaimersRaceOwnerCancels", testConcurrentClaimersVsCancels},
	{"TwoStores", testConcurrentTwoStores},
}

// createDueMany creates n due alarms for owner, several at a time, and returns them.
func (e *env) createDueMany(owner string, n int) []domain.Alarm {
	e.t.Helper()
	as := make([]domain.Alarm, n)
	for i := range as {
		as[i] = e.build(e.onceIn(owner, 0))
	}
	const writers = 4
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += writers {
				if _, _, err := CreateOne(e.ctx, e.store, as[i]); err != nil {
					errs <- fmt.Errorf("Create(%s): %w", as[i].ID, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.t.Fatal(err)
	}
	return as
}

// claimTally records, per alarm id, how often a claimer's fired transition applied and
// how often it was stale. Safe for concurrent use.
type claimTally struct {
	mu      sync.Mutex
	applied map[string]int
	stale   map[string]int
}

func newClaimTally() *claimTally {
	return &claimTally{applied: map[string]int{}, stale: map[string]int{}}
}

// drain claims batches as p.Worker until a claim finds nothing, applying a delivered
// outcome to everything it claims, and tallies the results. A fair claimer starts each
// claim at the lane the previous one said (Claimed.Next), as the dispatcher does.
func drain(ctx context.Context, s ports.Store, clock ports.Clock, p ports.ClaimParams, tally *claimTally) error {
	worker, batch := p.Worker, p.Batch
	for {
		c, err := s.ClaimDue(ctx, p)
		if err != nil {
			return fmt.Errorf("%s: ClaimDue: %w", worker, err)
		}
		if len(c.Alarms) == 0 {
			return nil
		}
		if len(c.Alarms) > batch {
			return fmt.Errorf("%s: ClaimDue returned %d alarms for a batch of %d", worker, len(c.Alarms), batch)
		}
		if p.Fair != nil {
			if v := fairViolation(c, p); v != "" {
				return fmt.Errorf("%s: fair ClaimDue from lane %d: %s", worker, p.Fair.Start, v)
			}
			p.Fair = &ports.FairClaim{Start: c.Next, PerLane: p.Fair.PerLane}
		}
		now := clock.Now()
		ts := make([]domain.Transition, len(c.Alarms))
		for i, a := range c.Alarms {
			if a.ClaimedBy != worker {
				return fmt.Errorf("%s: claimed alarm %s carries lease of %q", worker, a.ID, a.ClaimedBy)
			}
			ts[i] = domain.Decide(domain.Begin(a, now, policy), domain.Delivered(), now, policy)
		}
		r, err := s.Apply(ctx, ts)
		if err != nil {
			return fmt.Errorf("%s: Apply: %w", worker, err)
		}
		stale := map[string]bool{}
		for _, id := range r.Stale {
			stale[id] = true
		}
		if r.Applied+len(r.Stale) != len(ts) {
			return fmt.Errorf("%s: Apply of %d = {Applied: %d, Stale: %d}: does not add up", worker, len(ts), r.Applied, len(r.Stale))
		}
		tally.mu.Lock()
		for _, a := range c.Alarms {
			if stale[a.ID] {
				tally.stale[a.ID]++
			} else {
				tally.applied[a.ID]++
			}
		}
		tally.mu.Unlock()
	}
}

// runClaimers drains stores with perStore workers each and waits for them.
func (e *env) runClaimers(stores []ports.Store, perStore, batch int, tally *claimTally, alongside ...func() error) {
	e.t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(stores)*perStore+len(alongside))
	for si, s := range stores {
		for w := range perStore {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := ports.ClaimParams{Worker: fmt.Sprintf("store%d-w%d", si, w), Lease: longLease, Batch: batch}
				if err := drain(e.ctx, s, e.clock, p, tally); err != nil {
					errs <- err
				}
			}()
		}
	}
	for _, fn := range alongside {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.t.Error(err)
	}
}

// wantAllFiredOnce checks that every alarm was claimed and fired exactly once, and
// that nothing is left to claim.
func (e *env) wantAllFiredOnce(as []domain.Alarm, tally *claimTally) {
	e.t.Helper()
	if len(tally.applied) != len(as) {
		e.t.Errorf("%d distinct alarms fired, want %d", len(tally.applied), len(as))
	}
	double, stale := 0, 0
	for _, a := range as {
		if n := tally.applied[a.ID]; n > 1 {
			double++
		}
		stale += tally.stale[a.ID]
	}
	if double > 0 || stale > 0 {
		e.t.Errorf("%d alarms were claimed and fired twice, %d outcomes were stale; want none (no lease could expire)", double, stale)
	}
	if left := e.listAll(alice, domain.StatusActive, ports.MaxListLimit); len(left) != 0 {
		e.t.Errorf("%d alarms still active after the claimers finished", len(left))
	}
	if at, ok := e.nextDue(); ok {
		e.t.Errorf("NextDue = %s after everything fired, want none", fmtTime(at))
	}
	e.claimNone("late", longLease)
}

// Eight concurrent claimers over 2,000 due alarms claim each exactly once and leave
// none behind.
func testConcurrentClaimers(t *testing.T, e *env) {
	as := e.createDueMany(alice, 2000)
	tally := newClaimTally()
	e.runClaimers([]ports.Store{e.store}, 8, 50, tally)
	e.wantAllFiredOnce(as, tally)
}

// Claimers racing an owner who cancels half the alarms: every alarm ends either fired
// (its outcome applied, once) or cancelled (any outcome for it stale), never both.
func testConcurrentClaimersVsCancels(t *testing.T, e *env) {
	as := e.createDueMany(alice, 200)
	tally := newClaimTally()
	cancelHalf := func() error {
		for i := 0; i < len(as); i += 2 {
			if _, err := e.store.Mutate(e.ctx, ports.OwnedBy(alice), as[i].ID, cancelFn); err != nil {
				return fmt.Errorf("owner: Mutate(cancel %s): %w", as[i].ID, err)
			}
		}
		return nil
	}
	e.runClaimers([]ports.Store{e.store}, 4, 10, tally, cancelHalf)

	for i, a := range as {
		got := e.get(alice, a.ID)
		applied := tally.applied[a.ID]
		switch {
		case applied > 1:
			t.Errorf("alarm %s fired %d times", a.ID, applied)
		case got.Status == domain.StatusFired && applied != 1:
			t.Errorf("alarm %s is fired but no claimer's outcome applied", a.ID)
		case got.Status == domain.StatusCancelled && applied != 0:
			t.Errorf("alarm %s is cancelled but a claimer's fire applied to it", a.ID)
		case got.Status != domain.StatusFired && got.Status != domain.StatusCancelled:
			t.Errorf("alarm %s ended %s, want fired or cancelled", a.ID, got.Status)
		case i%2 == 1 && got.Status != domain.StatusFired:
			t.Errorf("alarm %s (never cancelled) ended %s, want fired", a.ID, got.Status)
		}
		evs := eventTypes(e.events(alice, a.ID))
		if len(evs) != 2 || (evs[1] != domain.EventFired && evs[1] != domain.EventCancelled) {
			t.Errorf("alarm %s (%s) history = %v, want created then fired or cancelled", a.ID, got.Status, evs)
		}
	}
}

// Claimers in two Stores on one database (two processes) claim each alarm once. Only
// for stores that declare MultiProcess, with a harness that can reopen a database.
func testConcurrentTwoStores(t *testing.T, e *env) {
	if !e.caps.MultiProcess {
		t.Skip("store does not declare MultiProcess")
	}
	r, ok := e.harness.(Reopener)
	if !ok {
		t.Skip("harness does not implement contract.Reopener; cannot open a second Store on one database")
	}
	second := r.Reopen(t, e.clock)

	as := e.createDueMany(alice, 1000)
	if _, err := second.Get(e.ctx, ports.OwnedBy(alice), as[0].ID); err != nil {
		t.Fatalf("second store cannot read the first one's alarm: %v", err)
	}
	tally := newClaimTally()
	e.runClaimers([]ports.Store{e.store, second}, 4, 25, tally)
	e.wantAllFiredOnce(as, tally)
}
