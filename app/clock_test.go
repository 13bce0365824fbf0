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
	c.Observe(storeNow, start, time.Now())
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
	c.Observe(local.Add(30*time.Second), local, local) // the store is 30s ahead
	if got := c.Now(); !got.Equal(local.Add(30 * time.Second)) {
		t.Errorf("Now = %s, want the store's time %s", got, local.Add(30*time.Second))
	}
}

// A reading taken during a slow round trip (a claim that waited on a busy machine) may
// be off by half of it: it does not replace an offset read on a fast one, unless that
// one is older than offsetFresh.
func TestStoreClockKeepsTheOffsetOfFastReadings(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	c := NewStoreClock()
	c.Observe(start.Add(500*time.Microsecond), start, start.Add(time.Millisecond)) // offset 0, 1ms round trip
	offset := func() time.Duration { return time.Duration(c.offset.Load()) }

	// 200ms round trip, the reading taken near its start: 100ms off if believed.
	at := start.Add(time.Second)
	c.Observe(at, at, at.Add(200*time.Millisecond))
	if got := offset(); got != 0 {
		t.Errorf("after a slow reading the offset is %s, want 0 (the fast reading's)", got)
	}
	// A fast reading that finds the store 2ms ahead is taken.
	at = start.Add(2 * time.Second)
	c.Observe(at.Add(2*time.Millisecond+600*time.Microsecond), at, at.Add(1200*time.Microsecond))
	if got := offset(); got != 2*time.Millisecond {
		t.Errorf("after a fast reading the offset is %s, want 2ms", got)
	}
	// Once the fast reading is older than offsetFresh, a slower one is taken.
	at = start.Add(2*time.Second + offsetFresh + time.Second)
	c.Observe(at.Add(50*time.Millisecond), at, at.Add(100*time.Millisecond))
	if got := offset(); got != 0 {
		t.Errorf("after a slow reading past offsetFresh the offset is %s, want 0", got)
	}
}
