package sqlite

import (
	"cmp"
	"context"
	"sync"
	"time"
)

// writeTurns hands the single writer connection out in order, claims first.
//
// database/sql gives a freed connection to a random waiter. With one writer connection
// and a dispatcher under a backlog, the waiters are the claim loop, an apply per batch in
// flight (each flushing its outcomes every few milliseconds), the API's creates and the
// upkeep: a claim drew its turn at random among them and waited up to half a second on
// a loaded 2-core machine (issue 24). Every wake due meanwhile waited with it, the quiet
// owners' included, whatever the fair claim would have given them.
//
// So the store queues its own writers: claims in one queue, everything else in another,
// each first in first out, and a freed turn goes to the oldest claim if there is one,
// unless the oldest other writer has waited othersMaxWait already. A claim therefore
// waits for the transaction in progress and, at worst, the writers that have waited
// that long; the others are never starved (docs/benchmarks.md, "SQLite's write turns",
// says why neither claims strictly first nor strict alternation).
type writeTurns struct {
	maxWait time.Duration // othersMaxWait when zero (tests set their own)

	mu     sync.Mutex
	busy   bool
	claims []chan struct{}
	others []waiter
}

// waiter is another writer waiting, since when.
type waiter struct {
	turn  chan struct{}
	since time.Time
}

// othersMaxWait is how long another writer waits behind claims at most before it goes
// first.
const othersMaxWait = 20 * time.Millisecond

// acquire waits for the writer's turn; first says the caller is a claim. It returns
// ctx's error, holding nothing, when ctx ends first.
func (w *writeTurns) acquire(ctx context.Context, first bool) error {
	w.mu.Lock()
	if !w.busy {
		w.busy = true
		w.mu.Unlock()
		return nil
	}
	turn := make(chan struct{})
	if first {
		w.claims = append(w.claims, turn)
	} else {
		w.others = append(w.others, waiter{turn: turn, since: time.Now()})
	}
	w.mu.Unlock()
	select {
	case <-turn:
		return nil
	case <-ctx.Done():
	}
	w.mu.Lock()
	if w.remove(turn) {
		w.mu.Unlock()
		return ctx.Err()
	}
	w.mu.Unlock()
	// The turn was handed to us as ctx ended: pass it on.
	<-turn
	w.release()
	return ctx.Err()
}

// release hands the turn to the oldest waiting claim, else the oldest other writer; but
// to the oldest other writer first once it has waited othersMaxWait.
func (w *writeTurns) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	var next chan struct{}
	switch {
	case len(w.claims) > 0 && (len(w.others) == 0 || time.Since(w.others[0].since) < cmp.Or(w.maxWait, othersMaxWait)):
		next, w.claims = w.claims[0], w.claims[1:]
	case len(w.others) > 0:
		next, w.others = w.others[0].turn, w.others[1:]
	default:
		w.busy = false
		return
	}
	close(next) // the turn passes on: busy stays true
}

// remove drops a waiter that gave up; false when it was already handed the turn.
func (w *writeTurns) remove(turn chan struct{}) bool {
	for i, c := range w.claims {
		if c == turn {
			w.claims = append(w.claims[:i], w.claims[i+1:]...)
			return true
		}
	}
	for i, o := range w.others {
		if o.turn == turn {
			w.others = append(w.others[:i], w.others[i+1:]...)
			return true
		}
	}
	return false
}
