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
	local  func() time.Time
}

// NewStoreClock starts with no offset; call Sync once the store is open.
func NewStoreClock() *StoreClock {
	return &StoreClock{local: time.Now}
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

// Observe records a store reading taken at about `at` on the process clock.
func (c *StoreClock) Observe(storeNow, at time.Time) {
	c.offset.Store(int64(storeNow.Sub(at)))
}

var _ ports.Clock = (*StoreClock)(nil)
