package dispatch

import "time"

// pace spaces out the wakes held back for one receiving party (an endpoint, an owner):
// each is due one step after the previous, a step being about how long the party takes
// per wake, so held-back wakes come back as fast as it takes them instead of all at
// once. Its user holds the lock that guards it.
type pace struct {
	took    time.Duration // how long the party's wakes take, smoothed (0: none ended yet)
	horizon time.Time     // when the last wake held back is due again
}

// observe smooths in the duration of a wake that ended (an average over about the
// last eight).
func (p *pace) observe(took time.Duration) {
	if p.took == 0 {
		p.took = took
		return
	}
	p.took += (took - p.took) / 8
}

// holdBack is how long the next held-back wake waits: a step after the last one held
// back, or earliest from now when that is later (the first since the party caught up),
// and never more than ceiling.
func (p *pace) holdBack(now time.Time, step, earliest, ceiling time.Duration) time.Duration {
	next := p.horizon.Add(step)
	if e := now.Add(earliest); next.Before(e) {
		next = e
	}
	p.horizon = next
	return min(next.Sub(now), ceiling)
}
