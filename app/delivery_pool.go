package app

import (
	"context"
	"sync"
	"sync/atomic"
)

// deliveryPool runs wakes on long-lived goroutines instead of one new goroutine per
// wake. At tens of thousands of wakes a second, starting a goroutine per wake (and
// growing its stack through the waker each time) was a visible share of the
// dispatcher's CPU (docs/benchmarks.md).
//
// Workers are started on demand, at most `limit` of them (the dispatcher's
// Concurrency). No wake ever waits long for a worker: the dispatcher reserves one
// delivery slot per wake before it claims, so at most Concurrency wakes are submitted
// and unfinished at any moment, and every worker that is not running one of them is
// about to receive the next.
type deliveryPool struct {
	jobs    chan func()
	limit   int64
	workers atomic.Int64
	running sync.WaitGroup
	closed  sync.Once
}

func newDeliveryPool(limit int) *deliveryPool {
	return &deliveryPool{jobs: make(chan func()), limit: int64(limit)}
}

// submit runs job on an idle worker, on a new one while fewer than limit exist, or
// else on the first worker to come free.
func (p *deliveryPool) submit(job func()) {
	select {
	case p.jobs <- job:
		return
	default:
	}
	if p.workers.Add(1) <= p.limit {
		p.running.Add(1)
		go p.work(job)
		return
	}
	p.workers.Add(-1)
	p.jobs <- job
}

func (p *deliveryPool) work(job func()) {
	defer p.running.Done()
	for {
		job()
		var ok bool
		if job, ok = <-p.jobs; !ok {
			return
		}
	}
}

// close ends the workers once every submitted job has returned. Call it only when
// nothing will be submitted any more.
func (p *deliveryPool) close() {
	p.closed.Do(func() { close(p.jobs) })
	p.running.Wait()
}

// runAll runs job(i) for every i in idx on the pool and waits for all of them.
func (p *deliveryPool) runAll(ctx context.Context, idx []int, job func(ctx context.Context, i int)) {
	var wg sync.WaitGroup
	wg.Add(len(idx))
	for _, i := range idx {
		p.submit(func() {
			defer wg.Done()
			job(ctx, i)
		})
	}
	wg.Wait()
}
