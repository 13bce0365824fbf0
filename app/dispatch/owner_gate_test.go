package dispatch

import (
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// The cap admits max wakes of one owner; the next is held back as owner_cap for at least
// ownerMinWait, and another owner is not affected.
func TestOwnerGateAdmitsMaxThenHoldsBack(t *testing.T) {
	g := newOwnerGate(3)
	now := time.Now()
	for i := range 3 {
		if held := g.admit("a", now); held != nil {
			t.Fatalf("wake %d of 3: held back (%v)", i+1, held)
		}
	}
	held := g.admit("a", now)
	if held == nil {
		t.Fatal("a fourth wake with the cap at 3: admitted")
	}
	if held.DeferReason() != ports.DeferredOwnerCap {
		t.Errorf("reason %q, want %q", held.DeferReason(), ports.DeferredOwnerCap)
	}
	if held.DeferFor() < ownerMinWait {
		t.Errorf("held back for %s, want at least %s", held.DeferFor(), ownerMinWait)
	}
	if got := g.inFlight("a"); got != 3 {
		t.Errorf("in flight %d after a hold-back, want 3 (the held-back wake is not counted)", got)
	}
	if held := g.admit("b", now); held != nil {
		t.Errorf("another owner held back: %v", held)
	}
}

// Successive hold-backs of one owner are one step apart, a step being how long its
// wakes take over the cap: they come back about as fast as its receivers take them.
// Never later than ownerMaxWait.
func TestOwnerGateHoldsBackAtTheOwnersPace(t *testing.T) {
	g := newOwnerGate(3)
	now := time.Now()
	for range 3 {
		g.admit("a", now)
	}
	g.settle("a", 300*time.Millisecond) // its wakes take 300ms: a step of 100ms
	g.admit("a", now)
	var waits []time.Duration
	for range 4 {
		held := g.admit("a", now)
		if held == nil {
			t.Fatal("admitted over the cap")
		}
		waits = append(waits, held.DeferFor())
	}
	want := []time.Duration{50 * time.Millisecond, 150 * time.Millisecond, 250 * time.Millisecond, 350 * time.Millisecond}
	for i := range want {
		if waits[i] != want[i] {
			t.Errorf("hold-backs %v, want %v (the first after ownerMinWait, then a step of 300ms/3 each)", waits, want)
			break
		}
	}

	slow := newOwnerGate(2)
	slow.admit("s", now)
	slow.admit("s", now)
	slow.settle("s", time.Hour) // one still in flight: the owner and its pace are kept
	slow.admit("s", now)
	slow.admit("s", now) // the first held back: ownerMinWait
	if held := slow.admit("s", now); held == nil || held.DeferFor() != ownerMaxWait {
		t.Errorf("a step of half an hour: held back %v, want for ownerMaxWait (%s)", held, ownerMaxWait)
	}
}

// A wake's end frees its room, and an owner with nothing in flight (and nothing held
// back still to come) is forgotten.
func TestOwnerGateSettleFreesRoomAndForgets(t *testing.T) {
	g := newOwnerGate(2)
	now := time.Now()
	g.admit("a", now)
	g.admit("a", now)
	if g.admit("a", now) == nil {
		t.Fatal("admitted over the cap")
	}
	g.settle("a", time.Millisecond)
	if held := g.admit("a", now); held != nil {
		t.Fatalf("after a wake ended: held back (%v), want admitted", held)
	}
	if got := g.inFlight("a"); got != 2 {
		t.Errorf("in flight %d, want 2", got)
	}

	g = newOwnerGate(2)
	g.admit("b", now)
	g.admit("b", now)
	g.settle("b", time.Millisecond)
	g.settle("b", time.Millisecond)
	if n := len(g.owners); n != 0 {
		t.Errorf("%d owners remembered with nothing in flight and nothing held back, want 0", n)
	}

	// Held back long ago: its horizon has passed, so its last end forgets it too.
	past := now.Add(-time.Minute)
	g.admit("c", past)
	g.admit("c", past)
	if g.admit("c", past) == nil {
		t.Fatal("admitted over the cap")
	}
	g.settle("c", time.Millisecond)
	g.settle("c", time.Millisecond)
	if n := len(g.owners); n != 0 {
		t.Errorf("%d owners remembered after their hold-backs came due and their wakes ended, want 0", n)
	}
	g.settle("never-admitted", time.Millisecond) // no entry: nothing to do, no panic
	if got := g.inFlight("never-admitted"); got != 0 {
		t.Errorf("an unknown owner has %d in flight", got)
	}
}

func TestOwnerGateWithoutACapNeverHoldsBack(t *testing.T) {
	g := newOwnerGate(0)
	now := time.Now()
	for range 1000 {
		if held := g.admit("a", now); held != nil {
			t.Fatalf("held back with no cap: %v", held)
		}
	}
	g.settle("a", time.Second)
	if n := len(g.owners); n != 0 {
		t.Errorf("no cap keeps %d owners, want none", n)
	}
}

func TestDispatcherConfigOwnerCap(t *testing.T) {
	for _, c := range []struct{ concurrency, owner, want int }{
		{8, 0, 4},  // default: half the slots
		{9, 0, 4},  // half, rounded down
		{3, 0, 1},  // at least one
		{2, 0, 1},  // half of two
		{1, 0, 0},  // one slot: a cap of one cannot bind
		{8, 2, 2},  // as set
		{8, 7, 7},  // as set
		{8, 8, 0},  // Concurrency: no cap
		{8, 20, 0}, // more: no cap
	} {
		cfg := Config{Concurrency: c.concurrency, OwnerMaxInFlight: c.owner}
		if got := cfg.ownerCap(); got != c.want {
			t.Errorf("Concurrency %d, OwnerMaxInFlight %d: cap %d, want %d", c.concurrency, c.owner, got, c.want)
		}
	}
}

func TestDispatcherConfigRefusesANegativeOwnerCap(t *testing.T) {
	c := DefaultConfig()
	c.Worker = "w"
	for _, n := range []int{0, 1, c.Concurrency, 10 * c.Concurrency} {
		c.OwnerMaxInFlight = n
		if err := c.Validate(); err != nil {
			t.Errorf("OwnerMaxInFlight %d refused: %v", n, err)
		}
	}
	c.OwnerMaxInFlight = -1
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "owner max in flight") {
		t.Errorf("OwnerMaxInFlight -1: %v, want refused, naming it", err)
	}
}
