package app

import (
	"context"
	"testing"
	"time"
)

// processClock is a store whose clock is the real one, like a database on a machine
// with a correct clock.
type processClock struct{}

func (processClock) Now(context.Context) (time.Time, error) { return time.Now().UTC(), nil }

// A node whose process clock is 30s ahead still reads the store's time, both after Sync
// and after the dispatcher observes a claim (which measures the round trip with
// time.Now): the skew must not leak back in through Observe.
func TestStoreClockWithSkewFollowsTheStore(t *testing.T) {
	c := NewStoreClock(WithProcessClockSkew(30 * time.Second))
	if err := c.Sync(context.Background(), processClock{}); err != nil {
		t.Fatal(err)
	}
	near := func(step string) {
		t.Helper()
		if d := c.Now().Sub(time.Now()); d > time.Second || d < -time.Second {
			t.Errorf("%s: Now is %s off the store's clock, want within 1s", step, d)
		}
	}
	near("after Sync")
	start := time.Now()
	storeNow, _ := processClock{}.Now(context.Background())
	c.Observe(storeNow, start.Add(time.Since(start)/2))
	near("after Observe")
}

func TestStoreClockSkewShiftsTheProcessClock(t *testing.T) {
	c := NewStoreClock(WithProcessClockSkew(-time.Minute))
	if d := time.Since(c.local()); d < 59*time.Second || d > 61*time.Second {
		t.Errorf("local clock is %s behind, want 1m", d)
	}
}

func TestStoreClockFollowsTheStoreOffset(t *testing.T) {
	local := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	c := NewStoreClock()
	c.local = func() time.Time { return local }
	c.Observe(local.Add(30*time.Second), local) // the store is 30s ahead
	if got := c.Now(); !got.Equal(local.Add(30 * time.Second)) {
		t.Errorf("Now = %s, want the store's time %s", got, local.Add(30*time.Second))
	}
}
