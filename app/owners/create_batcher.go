package owners

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// createBatcher is the group commit of single creates: concurrent Alarms.Create calls
// share one store transaction (ports.AlarmStore.CreateBatch) instead of committing one
// each.
//
// No create waits for a timer. A create that finds fewer than maxFlushes flushes running
// starts one at once, with itself and whatever else is waiting; creates that arrive
// while every flush is busy queue, and the next flush to finish takes all of them (up to
// maxBatch). Alone, a create costs what it did before; under load, a transaction carries
// as many creates as arrived during one round trip, and the commits (an fsync each on
// PostgreSQL, the write lock on SQLite) no longer bound the rate.
//
// Each create keeps its own answer: its alarm and whether it was deduped or replaced,
// or its own error. A store error for the whole flush is every member's error. Idempotency holds
// inside a flush too (CreateBatch dedupes a key repeated in one batch).
type createBatcher struct {
	store      ports.AlarmStore
	maxFlushes int
	maxBatch   int

	mu      sync.Mutex
	waiting []*pendingCreate
	running int
}

// Group commit bounds. Two flushes in flight keep the store busy while the next group
// gathers (one would idle it during each round trip); more only split the groups. A
// group of 500 is a transaction of a few milliseconds on every store.
const (
	createFlushes  = 2
	createMaxGroup = 500
	// createFlushTimeout bounds a flush; it runs detached from any one caller's context,
	// since the others in its group still want their answers.
	createFlushTimeout = 30 * time.Second
)

type pendingCreate struct {
	alarm domain.Alarm
	done  chan ports.CreateResult
}

func newCreateBatcher(store ports.AlarmStore) *createBatcher {
	return &createBatcher{store: store, maxFlushes: createFlushes, maxBatch: createMaxGroup}
}

// create stores a with the next group and returns its own result. A ctx that ends while
// the create waits returns ctx's error at once; the create may still be committed.
func (b *createBatcher) create(ctx context.Context, a domain.Alarm) (ports.CreateResult, error) {
	p := &pendingCreate{alarm: a, done: make(chan ports.CreateResult, 1)}
	b.mu.Lock()
	b.waiting = append(b.waiting, p)
	start := b.running < b.maxFlushes
	if start {
		b.running++
	}
	b.mu.Unlock()
	if start {
		go b.flushLoop()
	}
	select {
	case r := <-p.done:
		err := r.Err
		r.Err = nil
		return r, err
	case <-ctx.Done():
		return ports.CreateResult{}, ctx.Err()
	}
}

// flushLoop flushes groups until nobody is waiting.
func (b *createBatcher) flushLoop() {
	for {
		b.mu.Lock()
		n := min(len(b.waiting), b.maxBatch)
		if n == 0 {
			b.running--
			b.mu.Unlock()
			return
		}
		group := b.waiting[:n:n]
		b.waiting = append([]*pendingCreate(nil), b.waiting[n:]...)
		b.mu.Unlock()
		b.flush(group)
	}
}

func (b *createBatcher) flush(group []*pendingCreate) {
	as := make([]domain.Alarm, len(group))
	for i, p := range group {
		as[i] = p.alarm
	}
	ctx, cancel := context.WithTimeout(context.Background(), createFlushTimeout)
	defer cancel()
	rs, err := b.store.CreateBatch(ctx, as)
	if err == nil && len(rs) != len(group) {
		// A store that broke the port's promise must not take the process down with an
		// index out of range in this goroutine: every create of the group fails instead.
		err = fmt.Errorf("app: the store answered %d results for a group of %d creates", len(rs), len(group))
	}
	for i, p := range group {
		if err != nil {
			p.done <- ports.CreateResult{Err: err}
		} else {
			p.done <- rs[i]
		}
	}
}
