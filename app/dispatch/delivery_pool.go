package dispatch

import (
	"sync"
)

// deliveryPool runs wakes on long-lived goroutines instead of one new goroutine per
// wake. At tens of thousands of wakes a second, starting a goroutine per wake (and
// growing its stack through the waker each time) was a visible share of the
// dispatcher's CPU (docs/benchmarks.md).
//
// Workers are woken one at a time, not one per job: queueing a batch wakes a worker only
// when no other worker is already on its way to the queue, and a worker that takes a
// job while more are queued wakes the next one before running its own. A slow wake (a webhook
// waiting on its receiver) therefore never holds up the rest of the queue for longer
// than it takes to schedule one goroutine, and a queue of slow wakes fans out to as
// many workers as it has jobs, up to the limit. Fast wakes (a no-op waker) are drained
// by the few workers already running instead of waking a thousand parked goroutines
// for a microsecond's work each, whose wakeups and regrown stacks would cost more
// than the work (docs/architecture.md, "The dispatcher").
//
// Queued jobs are taken one owner at a time, in turn (ownerTurns): a fair claim hands
// the pool a batch with a quiet owner's wake after a thousand of a busy owner's (a
// batch is sorted oldest due first, and the backlog is older), and across batches
// still queued; first in first out, that wake would wait for all of them.
//
// Parked workers are reused last-in first-out, so the ones woken are the ones that ran
// most recently. At most limit workers exist (the dispatcher's Concurrency), started on
// demand. The dispatcher reserves one delivery slot per wake before it claims, so at
// most limit jobs are ever queued or running, and a job never waits for a worker to
// finish another while fewer than limit exist.
type deliveryPool struct {
	limit int

	mu      sync.Mutex
	turns   ownerTurns      // the queued jobs, one queue per owner, owners in turn
	parked  []chan struct{} // one per parked worker; a send wakes it
	workers int
	waking  bool // a worker was woken or started and has not reached the queue yet
	closed  bool
	running sync.WaitGroup
}

// task is one job of a queueAll: run(i). A batch's tasks share one run function, so
// queueing a wake allocates nothing of its own.
type task struct {
	run func(i int)
	i   int
}

func newDeliveryPool(limit int) *deliveryPool {
	return &deliveryPool{limit: limit}
}

// wakeLocked wakes a parked worker, or starts one while fewer than limit exist, unless
// one is already on its way to the queue: that one takes the head of the queue and
// wakes the next if more is left. With every worker busy nothing is woken; the first
// to finish takes the next job.
func (p *deliveryPool) wakeLocked() {
	if p.waking || p.turns.empty() {
		return
	}
	if n := len(p.parked); n > 0 {
		wake := p.parked[n-1]
		p.parked = p.parked[:n-1]
		p.waking = true
		wake <- struct{}{} // buffered: the worker parked on it is waiting or about to
		return
	}
	if p.workers < p.limit {
		p.workers++
		p.waking = true
		p.running.Add(1)
		go p.work()
	}
}

func (p *deliveryPool) work() {
	defer p.running.Done()
	wake := make(chan struct{}, 1)
	p.mu.Lock()
	p.waking = false // started by wakeLocked
	for {
		if p.turns.empty() {
			if p.closed {
				p.workers--
				p.mu.Unlock()
				return
			}
			p.parked = append(p.parked, wake)
			p.mu.Unlock()
			<-wake
			p.mu.Lock()
			p.waking = false
			continue
		}
		t := p.turns.next()
		p.wakeLocked() // more queued: hand it to the next worker before running this one
		p.mu.Unlock()
		t.run(t.i)
		p.mu.Lock()
	}
}

// close ends the workers once every queued job has returned. Call it only when nothing
// will be queued any more.
func (p *deliveryPool) close() {
	p.mu.Lock()
	p.closed = true
	for _, wake := range p.parked {
		wake <- struct{}{} // finds the queue empty and the pool closed: exits
	}
	p.parked = nil
	p.mu.Unlock()
	p.running.Wait()
}

// queueAll queues run(i) for every i in idx and returns at once; the caller learns of
// each job's end from run itself (the dispatcher's fire collects them one by one, so
// one slow wake does not hold the outcomes of the others). owner(i) is the owner of
// job i: workers take the owners' queued jobs in turn (ownerTurns).
func (p *deliveryPool) queueAll(idx []int, owner func(i int) string, run func(i int)) {
	if len(idx) == 0 {
		return
	}
	p.mu.Lock()
	for _, i := range idx {
		p.turns.push(owner(i), task{run: run, i: i})
	}
	p.wakeLocked()
	p.mu.Unlock()
}
