package contract

import (
	"sync"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// ManualClock is a ports.Clock that moves only when told to. The suite hands one to
// every store it opens, so it can make alarms due and leases expire without sleeping.
// It is safe for concurrent use; adapters may use it in their own tests too.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

var _ ports.Clock = (*ManualClock)(nil)

// NewManualClock returns a clock that reads start (in UTC) until it is moved.
func NewManualClock(start time.Time) *ManualClock {
	return &ManualClock{now: start.UTC()}
}

// Now returns the clock's current time, in UTC.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t (backwards too).
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t.UTC()
}

// Advance moves the clock by d and returns the new time.
func (c *ManualClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}
