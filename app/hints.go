package app

import (
	"sync"
	"time"
)

// Hints carries "an alarm is due at T" to a sleeping dispatcher. It remembers only the
// earliest pending instant, so producers never block and a burst of creates costs one
// wake-up.
type Hints struct {
	mu       sync.Mutex
	earliest time.Time
	ch       chan struct{}
}

// NewHints makes an empty hint box.
func NewHints() *Hints { return &Hints{ch: make(chan struct{}, 1)} }

// Hint records that something is due at `at`.
func (h *Hints) Hint(at time.Time) {
	h.mu.Lock()
	if h.earliest.IsZero() || at.Before(h.earliest) {
		h.earliest = at
	}
	h.mu.Unlock()
	select {
	case h.ch <- struct{}{}:
	default:
	}
}

// C is signalled after Hint; receive, then Take.
func (h *Hints) C() <-chan struct{} { return h.ch }

// Take returns and clears the earliest pending hint (zero when none).
func (h *Hints) Take() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	at := h.earliest
	h.earliest = time.Time{}
	return at
}
