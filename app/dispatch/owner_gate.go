package dispatch

import (
	"fmt"
	"sync"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// ownerGate caps the wakes one owner has in flight on this node (OwnerMaxInFlight), so
// an owner whose receivers are slow or hung cannot take every delivery slot: with the
// default of half the slots, the other half is always there for everybody else. A
// wake over the cap is held back, not sent: its slot is released at once and the
// alarm is due again at its owner's pace (below), so it is neither lost nor spinning.
type ownerGate struct {
	max int // 0: no cap

	mu     sync.Mutex
	owners map[string]*ownerPace
}

// ownerPace is one owner's wakes on this node.
type ownerPace struct {
	inFlight int
	// pace spaces its held-back wakes: a step is how long a wake takes over how many
	// may be in flight.
	pace pace
}

// Bounds of a held-back wake's wait: not sooner than ownerMinWait (a retry storm of
// claims and deferrals), not later than ownerMaxWait (a receiver that recovered).
const (
	ownerMinWait = 50 * time.Millisecond
	ownerMaxWait = 30 * time.Second
)

func newOwnerGate(max int) *ownerGate {
	return &ownerGate{max: max, owners: map[string]*ownerPace{}}
}

// admit counts a wake of owner in flight, or holds it back when the owner is at its cap.
func (g *ownerGate) admit(owner string, now time.Time) *heldBack {
	if g.max <= 0 {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.owners[owner]
	if p == nil {
		p = &ownerPace{}
		g.owners[owner] = p
	}
	if p.inFlight < g.max {
		p.inFlight++
		return nil
	}
	wait := p.pace.holdBack(now, max(p.pace.took, ownerMinWait)/time.Duration(g.max), ownerMinWait, ownerMaxWait)
	return &heldBack{wait: wait, reason: ports.DeferredOwnerCap, why: fmt.Sprintf("owner at its in-flight cap: %d wakes in flight on this node (--owner-max-in-flight)", p.inFlight)}
}

// settle ends a wake admitted for owner that took took.
func (g *ownerGate) settle(owner string, took time.Duration) {
	if g.max <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.owners[owner]
	if p == nil {
		return
	}
	p.inFlight--
	p.pace.observe(took)
	if p.inFlight == 0 {
		// Nothing in flight: none of its wakes can be held back now, so its pace is not
		// needed (the ones held back come back at the times they were given). Forget it,
		// or the map would keep every owner the node ever woke.
		delete(g.owners, owner)
	}
}

// inFlight is how many wakes owner has in flight here (tests).
func (g *ownerGate) inFlight(owner string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if p := g.owners[owner]; p != nil {
		return p.inFlight
	}
	return 0
}
