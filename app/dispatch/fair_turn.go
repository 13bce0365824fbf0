package dispatch

import (
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// fairTurn decides each claim's fairness. While claims keep up with what
// falls due, nobody waits for anybody and a claim is the plain one (ports.ClaimParams:
// the oldest due first, whoever owns them). Once a plain claim comes back full and
// behind, its newest alarm due more than fairBehind ago (a backlog: somebody may be
// waiting behind it), the next claims are fair claims (ports.FairClaim):
// the store visits the owners' lanes in turn, starting after the lane the last claim
// filled up in, so an owner with a backlog gets its share of each claim and every other
// owner with due work is served within a claim or two, whatever the backlog's size.
// When a fair claim leaves nothing behind, claims are plain again.
//
// A lane's share is the batch over the lanes that had more than they were given last
// time: one owner alone with a backlog gets whole batches (all the capacity when
// nobody else wants it); k owners with backlogs get a k-th each; owners with a few
// due alarms take what they have first, since their lanes come before the backlog's
// in the next turn. Used by the claim loop only.
//
// While several owners are being served (a claim held more than one owner's alarms in
// the last sharedFor), claims are also kept small: at most sharedClaim alarms. The
// quiet owners' wakes are claimed within a claim or two of falling due, but a claim
// is also a wait: for the claim before it, and on SQLite for the write before that (a
// batch's outcomes). At a thousand alarms each, those were most of a quiet owner's lag
// during a burst (docs/reliability.md, "Noisy neighbours"), and the burst drains no
// slower on smaller claims. An owner alone with a backlog still claims whole batches.
type fairTurn struct {
	on          bool      // the last claim may have left due alarms behind
	next        int       // the lane the next fair claim starts at
	capped      int       // lanes the last fair claim left alarms in
	sharedUntil time.Time // claims are kept to sharedClaim until then
}

// sharedClaim is the most a claim asks for while several owners are being served, and
// sharedFor how long after the last claim that held more than one owner's alarms.
//
// fairBehind is how far behind a full plain claim may end before the next is fair. A
// plain claim takes the oldest due first, so what it leaves is due no earlier than its
// newest alarm: when that fell due less than fairBehind ago, nobody has waited longer
// than that, and a fair claim could give nobody more than it costs. That is a busy
// steady stream, whose claims come back full without a backlog behind them.
const (
	sharedClaim = 256
	sharedFor   = time.Second
	fairBehind  = 25 * time.Millisecond
)

// size is the claim size to ask for at now, given the adaptive size want.
func (f *fairTurn) size(want int, now time.Time) int {
	if now.Before(f.sharedUntil) {
		return min(want, sharedClaim)
	}
	return want
}

// served records that a claim at now held the alarms of owners owners.
func (f *fairTurn) served(owners int, now time.Time) {
	if owners > 1 {
		f.sharedUntil = now.Add(sharedFor)
	}
}

// params is the fairness of a claim of n alarms: nil for a plain claim.
func (f *fairTurn) params(n int) *ports.FairClaim {
	if !f.on {
		return nil
	}
	return &ports.FairClaim{Start: f.next, PerLane: max(1, (n+max(f.capped, 1)-1)/max(f.capped, 1))}
}

// observe reads a claim's result and says whether more may be due right now.
func (f *fairTurn) observe(p ports.ClaimParams, c ports.Claimed) bool {
	if p.Fair == nil {
		full := len(c.Alarms) == p.Batch && p.Batch > 0
		f.on = full && c.Now.Sub(newestDue(c.Alarms)) > fairBehind
		f.capped = 1
		return full
	}
	f.next, f.capped = c.Next, c.Capped
	f.on = c.Capped > 0
	return f.on
}

// newestDue is the latest due time among alarms (none empty).
func newestDue(alarms []domain.Alarm) time.Time {
	_, newest := dueSpan(alarms)
	return newest
}

// countOwners is how many owners one claim served, for the fairness metric.
func countOwners(alarms []domain.Alarm) int {
	switch len(alarms) {
	case 0, 1:
		return len(alarms)
	}
	seen := make(map[string]struct{}, 4)
	for i := range alarms {
		seen[alarms[i].Owner] = struct{}{}
	}
	return len(seen)
}
