package dispatch

import (
	"context"
	"sync"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// sharedReceiver keeps the wakes that every owner sends to one receiver (the node's
// --wake-url) fair between those owners. A receiver serves its requests first come
// first served and knows nothing of owners: a burst of one owner's wakes in flight
// there is a queue every other owner's wake waits behind. So while more than one owner
// has woken the receiver within the last activeWindow, at most limit wakes are in flight
// to it from this node, and the queue forms here instead, where it is served owners in
// turn: an owner below its share (limit over the owners active) is sent at once, and a
// freed place goes to the next owner that waits. With one owner active nothing waits,
// so a single tenant's throughput is the receiver's alone.
//
// A wake waits for at most maxWait (or its context); then it is held back, due again
// shortly, as a wake that finds its endpoint full is.
type sharedReceiver struct {
	limit   int
	maxWait time.Duration
	now     func() time.Time // time.Now; tests move it

	mu        sync.Mutex
	inFlight  int
	owners    map[string]*receiverOwner // active: in flight, waiting, or seen within activeWindow
	turns     []*receiverOwner          // owners with wakes waiting, in turn
	at        int                       // turns' next owner
	waiting   int                       // wakes waiting, in all
	heldBack  int64                     // wakes that found no place in time, since the node started
	lastPrune time.Time
}

// receiverOwner is one owner's wakes at the shared receiver.
type receiverOwner struct {
	name     string
	inFlight int
	seen     time.Time
	waiters  []*queued // oldest first
	inTurns  bool
}

// activeWindow is how long an owner counts as sharing the receiver after its last wake:
// owners with a trickle of wakes (one every few hundred milliseconds) keep the limit on
// between their wakes, so a burst's queue does not build up again in the receiver.
const activeWindow = time.Second

func newSharedReceiver(limit int, maxWait time.Duration) *sharedReceiver {
	if limit <= 0 {
		return nil
	}
	return &sharedReceiver{limit: limit, maxWait: maxWait, now: time.Now, owners: map[string]*receiverOwner{}}
}

// acquire takes a place in flight for a wake of owner, waiting for one while the
// receiver is shared and full. It reports how long it waited, or false when no place
// came within maxWait (or before ctx ended): the wake is then not to be sent.
func (s *sharedReceiver) acquire(ctx context.Context, owner string) (time.Duration, bool) {
	s.mu.Lock()
	now := s.now()
	o := s.owner(owner, now)
	if len(s.owners) < 2 || o.inFlight < s.share() || (s.inFlight < s.limit && s.waiting == 0) {
		o.inFlight++
		s.inFlight++
		s.mu.Unlock()
		return 0, true
	}
	q := &queued{ready: make(chan struct{})}
	o.waiters = append(o.waiters, q)
	s.waiting++
	if !o.inTurns {
		o.inTurns = true
		s.turns = append(s.turns, o)
	}
	s.mu.Unlock()

	timer := time.NewTimer(s.maxWait)
	select {
	case <-q.ready:
	case <-ctx.Done():
	case <-timer.C:
	}
	timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if q.granted {
		return max(s.now().Sub(now), time.Nanosecond), true
	}
	for i, w := range o.waiters {
		if w == q {
			o.waiters = append(o.waiters[:i], o.waiters[i+1:]...)
			s.waiting--
			break
		}
	}
	s.heldBack++
	return 0, false
}

// release gives back the place of a wake of owner and hands freed places to the owners
// waiting, in turn.
func (s *sharedReceiver) release(owner string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.owners[owner]; o != nil {
		o.inFlight--
	}
	s.inFlight--
	s.prune(s.now())
	for s.waiting > 0 && (s.inFlight < s.limit || len(s.owners) < 2) {
		s.grantNext()
	}
}

// owner is owner's entry, made when it is new, seen at now (s.mu held).
func (s *sharedReceiver) owner(name string, now time.Time) *receiverOwner {
	o := s.owners[name]
	if o == nil {
		o = &receiverOwner{name: name}
		s.owners[name] = o
	}
	o.seen = now
	s.prune(now)
	return o
}

// share is the places an owner may always have in flight: the limit over the owners
// active, at least one (s.mu held).
func (s *sharedReceiver) share() int {
	return max(s.limit/len(s.owners), 1)
}

// grantNext gives a place to the oldest waiting wake of the next owner in turn (s.mu
// held; some wake waits).
func (s *sharedReceiver) grantNext() {
	for {
		if s.at >= len(s.turns) {
			s.at = 0
		}
		o := s.turns[s.at]
		if len(o.waiters) == 0 { // its waiters gave up
			o.inTurns = false
			s.turns = append(s.turns[:s.at], s.turns[s.at+1:]...)
			continue
		}
		q := o.waiters[0]
		o.waiters[0] = nil
		o.waiters = o.waiters[1:]
		s.waiting--
		o.inFlight++
		s.inFlight++
		q.granted = true
		close(q.ready)
		if len(o.waiters) == 0 {
			o.inTurns = false
			s.turns = append(s.turns[:s.at], s.turns[s.at+1:]...)
		} else {
			s.at++
		}
		return
	}
}

// prune forgets the owners that have nothing here and were last seen more than
// activeWindow ago, at most four times a window (s.mu held).
func (s *sharedReceiver) prune(now time.Time) {
	if now.Sub(s.lastPrune) < activeWindow/4 {
		return
	}
	s.lastPrune = now
	for name, o := range s.owners {
		if o.inFlight == 0 && len(o.waiters) == 0 && now.Sub(o.seen) > activeWindow {
			delete(s.owners, name)
		}
	}
}

// queuedWakes is how many wakes wait for a place (tests).
func (s *sharedReceiver) queuedWakes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting
}

// load is the receiver as the overview shows it, when it is queuing: wakes waiting, or
// as many in flight as the limit while owners share it. Its owner and name are empty:
// it is the node's wake URL, not an endpoint.
func (s *sharedReceiver) load() (domain.EndpointLoad, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	full := len(s.owners) > 1 && s.inFlight >= s.limit
	if s.waiting == 0 && !full {
		return domain.EndpointLoad{}, false
	}
	return domain.EndpointLoad{Queued: s.waiting, InFlight: s.inFlight, HeldBack: s.heldBack}, true
}
