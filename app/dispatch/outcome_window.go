package dispatch

import (
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/chronoshq/chronos/domain"
)

// applyWindow is how long a finished wake's outcome may wait for others of its batch
// before it is applied. A batch of fast wakes still finishes inside one window and is
// applied in one Apply, as before; a batch with a slow or hung wake has everything
// else applied, and its slots and leases released, within a window of each wake's
// end, instead of when the slowest wake ends (issue 24). A node killed meanwhile
// delivers again at most the hung wakes and those of the last window.
const applyWindow = 20 * time.Millisecond

// outcomeWindow collects one batch's transitions as its wakes finish and applies them
// in groups: when the first of a group has waited applyWindow, and when the batch is
// done. A wake's delivery slot is released with the apply that records its outcome,
// so the node never claims more while outcomes are waiting to be written (a slow store
// slows claims instead of piling outcomes up in memory). Used by fire's goroutine only.
type outcomeWindow struct {
	d       *Dispatcher
	claim   trace.SpanContext // the batch's claim span, the parent of its applies
	pending []domain.Transition
	slots   int // wakes ended since the last flush, whose slots it releases
	timer   *time.Timer
	armed   bool
}

// newOutcomeWindow is the window of a batch of n wakes: room for all their outcomes
// at once, so that adding them never grows the slice.
func newOutcomeWindow(d *Dispatcher, claim trace.SpanContext, n int) *outcomeWindow {
	return &outcomeWindow{d: d, claim: claim, pending: make([]domain.Transition, 0, n)}
}

// add queues a transition for the next flush.
func (o *outcomeWindow) add(t domain.Transition) {
	o.pending = append(o.pending, t)
	o.arm()
}

// done says one wake of the batch has ended (with or without a transition).
func (o *outcomeWindow) done() {
	o.slots++
	o.arm()
}

func (o *outcomeWindow) arm() {
	if o.armed {
		return
	}
	o.armed = true
	if o.timer == nil {
		o.timer = time.NewTimer(applyWindow)
		return
	}
	o.timer.Reset(applyWindow)
}

// due fires when the oldest waiting outcome has waited applyWindow; nil (never) when
// nothing waits.
func (o *outcomeWindow) due() <-chan time.Time {
	if !o.armed {
		return nil
	}
	return o.timer.C
}

// flush applies what waits and releases the slots of the wakes it recorded.
func (o *outcomeWindow) flush() {
	if o.timer != nil {
		o.timer.Stop()
	}
	o.armed = false
	if len(o.pending) > 0 {
		o.d.apply(o.claim, o.pending)
		o.pending = o.pending[:0] // Apply keeps no reference to its argument
	}
	o.d.release(o.slots)
	o.slots = 0
}
