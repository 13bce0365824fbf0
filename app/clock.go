package app

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// StoreClock follows the store's clock without a round trip per reading: it keeps the
// offset between the store's Now and the process clock, refreshed by Sync and by every
// claim (Observe). On PostgreSQL and MySQL that makes a node with a skewed clock compute
// fire_at, backoff and reschedules on the database's time, like every other node.
//
// A reading is taken somewhere within its round trip, assumed halfway: its error is up
// to half the round trip. A claim that waited 100 ms on a busy machine would move the
// offset by up to 50 ms, and every wake with it, so a reading only replaces the
// offset when its round trip is no slower than twice the one the offset came from, or
// when that one is older than offsetFresh (the clocks may drift apart).
type StoreClock struct {
	offset atomic.Int64 // store time minus process time, in nanoseconds
	skew   time.Duration
	local  func() time.Time

	mu     sync.Mutex
	rtt    time.Duration // the round trip of the reading the offset came from
	readAt time.Time     // when that reading was taken (process clock)
}

// offsetFresh is how long the offset from a fast reading is kept over slower ones.
const offsetFresh = 30 * time.Second

// StoreClockOption configures NewStoreClock.
type StoreClockOption func(*StoreClock)

// WithProcessClockSkew shifts the process clock this StoreClock reads by d, as if the
// machine's clock were d ahead (negative: behind). TEST-ONLY: it exists so end-to-end
// tests can run a node whose clock disagrees with the database's
// (CHRONOS_TEST_CLOCK_OFFSET in cmd/chronos) and show that due-ness and leases still
// follow the database. Never set it in production.
func WithProcessClockSkew(d time.Duration) StoreClockOption {
	return func(c *StoreClock) {
		c.skew = d
		c.local = func() time.Time { return time.Now().Add(d) }
	}
}

// NewStoreClock starts with no offset; call Sync once the store is open.
func NewStoreClock(opts ...StoreClockOption) *StoreClock {
	c := &StoreClock{local: time.Now}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Now is the process clock corrected by the last observed offset, in UTC.
func (c *StoreClock) Now() time.Time {
	return c.local().Add(time.Duration(c.offset.Load())).UTC()
}

// Sync reads the store's clock once and records the offset, assuming the reading was
// taken halfway through the round trip.
func (c *StoreClock) Sync(ctx context.Context, s interface {
	Now(context.Context) (time.Time, error)
}) error {
	before := time.Now()
	storeNow, err := s.Now(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.readAt = time.Time{} // Sync always takes its reading
	c.mu.Unlock()
	c.Observe(storeNow, before, time.Now())
	return nil
}

// Observe records a store reading taken during a round trip from start to end, both
// time.Now() readings (a test skew is added here, so callers need not know). It keeps
// the offset it has when the reading's round trip was much slower (see StoreClock).
func (c *StoreClock) Observe(storeNow, start, end time.Time) {
	rtt := max(end.Sub(start), 0)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.readAt.IsZero() && rtt > 2*c.rtt && end.Sub(c.readAt) < offsetFresh {
		return
	}
	c.rtt, c.readAt = rtt, end
	mid := start.Add(rtt / 2).Add(c.skew)
	c.offset.Store(int64(storeNow.Sub(mid)))
}

var _ ports.Clock = (*StoreClock)(nil)
