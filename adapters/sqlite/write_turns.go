package sqlite

import (
	"context"
	"sync"
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
// unless the turn just ending was a claim's and another writer waits: never two claims
// in a row past a waiting writer. A claim therefore waits for at most the transaction in
// progress and one other; the others are not starved. (Claims strictly first starved the
// API's creates at a steady rate: the claim loop queues its next claim as soon as one
// ends, so under a saturated writer the creates waited for thousands of claimed
// alarms, and an alarm created for two seconds ahead was created late. The steady-rate
// bench showed it: p50 lag 20 ms with alternation or plain first-in-first-out, 350 ms and
// more with claims strictly first, at 15,000/s on the 2-core machine.)
type writeTurns struct {
	mu     sync.Mutex
	busy   bool
	claim  bool // the turn in progress is a claim's
	claims []chan struct{}
	others []chan struct{}
}

// acquire waits for the writer's turn; first says the caller is a claim. It returns
// ctx's error, holding nothing, when ctx ends first.
func (w *writeTurns) acquire(ctx context.Context, first bool) error {
	w.mu.Lock()
	if !w.busy {
		w.busy, w.claim = true, first
		w.mu.Unlock()
		return nil
	}
	turn := make(chan struct{})
	if first {
		w.claims = append(w.claims, turn)
	} else {
		w.others = append(w.others, turn)
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
// after a claim, to the oldest other writer first if one waits.
func (w *writeTurns) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	var next chan struct{}
	switch {
	case len(w.claims) > 0 && (!w.claim || len(w.others) == 0):
		next, w.claims, w.claim = w.claims[0], w.claims[1:], true
	case len(w.others) > 0:
		next, w.others, w.claim = w.others[0], w.others[1:], false
	default:
		w.busy, w.claim = false, false
		return
	}
	close(next) // the turn passes on: busy stays true
}

// remove drops a waiter that gave up; false when it was already handed the turn.
func (w *writeTurns) remove(turn chan struct{}) bool {
	for _, q := range []*[]chan struct{}{&w.claims, &w.others} {
		for i, c := range *q {
			if c == turn {
				*q = append((*q)[:i], (*q)[i+1:]...)
				return true
			}
		}
	}
	return false
}
