package dispatch

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Every wake of a batch runs once, and runAll returns only when all have.
func TestDeliveryPoolRunsEveryJobOnce(t *testing.T) {
	p := newDeliveryPool(8)
	defer p.close()
	for range 20 {
		const n = 500
		var runs [n]atomic.Int32
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		p.runAll(context.Background(), idx, func(_ context.Context, i int) { runs[i].Add(1) })
		for i := range runs {
			if got := runs[i].Load(); got != 1 {
				t.Fatalf("job %d ran %d times", i, got)
			}
		}
	}
}

// Slow wakes must not wait behind one another: a batch of jobs that each block until
// all of them have started completes only if every job got a worker of its own.
func TestDeliveryPoolFansOutToBlockingJobs(t *testing.T) {
	const n = 300
	p := newDeliveryPool(n)
	defer p.close()
	var started sync.WaitGroup
	started.Add(n)
	allStarted := make(chan struct{})
	go func() { started.Wait(); close(allStarted) }()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	done := make(chan struct{})
	go func() {
		p.runAll(context.Background(), idx, func(context.Context, int) {
			started.Done()
			<-allStarted
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("blocking jobs did not all start: some waited for a worker while fewer than the limit existed")
	}
}

// The pool never runs more jobs at once than its limit, and the jobs beyond it run as
// workers come free.
func TestDeliveryPoolRespectsLimit(t *testing.T) {
	const limit, n = 4, 40
	p := newDeliveryPool(limit)
	defer p.close()
	var now, peak atomic.Int32
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	p.runAll(context.Background(), idx, func(context.Context, int) {
		c := now.Add(1)
		for {
			m := peak.Load()
			if c <= m || peak.CompareAndSwap(m, c) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		now.Add(-1)
	})
	if got := peak.Load(); got > limit {
		t.Fatalf("%d jobs ran at once, limit %d", got, limit)
	}
	p.mu.Lock()
	workers := p.workers
	p.mu.Unlock()
	if workers > limit {
		t.Fatalf("%d workers started, limit %d", workers, limit)
	}
}

// close returns once the workers have exited, with batches from several goroutines
// having run concurrently before it.
func TestDeliveryPoolCloseEndsWorkers(t *testing.T) {
	p := newDeliveryPool(16)
	var wg sync.WaitGroup
	var total atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			idx := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
			p.runAll(context.Background(), idx, func(context.Context, int) { total.Add(1) })
		}()
	}
	wg.Wait()
	closed := make(chan struct{})
	go func() { p.close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("close did not return")
	}
	if total.Load() != 80 {
		t.Fatalf("ran %d jobs, want 80", total.Load())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.workers != 0 {
		t.Fatalf("%d workers left after close", p.workers)
	}
}

// runAll runs job(i) for every i in idx on the pool and waits for all of them.
func (p *deliveryPool) runAll(ctx context.Context, idx []int, job func(ctx context.Context, i int)) {
	if len(idx) == 0 {
		return
	}
	var wg sync.WaitGroup
	wg.Add(len(idx))
	p.queueAll(idx, func(int) string { return "" }, func(i int) {
		defer wg.Done()
		job(ctx, i)
	})
	wg.Wait()
}
