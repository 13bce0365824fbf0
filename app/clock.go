package app

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// StoreClock follows the store's clock without a round trip per reading: it keeps the
// offset between the store's Now and the process clock, refreshed by Sync and by every
// claim (Observe). On PostgreSQL and MySQL that makes a node with a skewed clock compute
// fire_at, backoff and reschedules on the database's time, like every other node.
type StoreClock struct {
	offset atomic.Int64 // store time minus process time, in nanoseconds
	skew   time.Duration
	local  func() time.Time
}

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
	before := c.local()
	storeNow, err := s.Now(ctx)
	if err != nil {
		return err
	}
	after := c.local()
	mid := before.Add(after.Sub(before) / 2)
	c.offset.Store(int64(storeNow.Sub(mid)))
	return nil
}

// Observe records a store reading taken at about `at`, a time.Now() reading (callers
// measure round trips with time.Now; a test skew is added here, so they need not know).
func (c *StoreClock) Observe(storeNow, at time.Time) {
	c.offset.Store(int64(storeNow.Sub(at.Add(c.skew))))
}

var _ ports.Clock = (*StoreClock)(nil)
