package app

import (
	"testing"
	"time"
)

func TestHintsKeepTheEarliestAndNeverBlock(t *testing.T) {
	h := NewHints()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 10; i > 0; i-- { // many producers, nobody reading: must not block
		h.Hint(t0.Add(time.Duration(i) * time.Second))
	}
	h.Hint(t0.Add(30 * time.Second))
	select {
	case <-h.C():
	default:
		t.Fatal("no signal after Hint")
	}
	if got := h.Take(); !got.Equal(t0.Add(time.Second)) {
		t.Errorf("Take = %s, want the earliest hint %s", got, t0.Add(time.Second))
	}
	if got := h.Take(); !got.IsZero() {
		t.Errorf("second Take = %s, want zero (cleared)", got)
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

func TestRetryDelayDoublesWithJitterUpToTheCap(t *testing.T) {
	r := newRetryDelay(100*time.Millisecond, time.Second)
	prevCap := time.Duration(0)
	for i := 0; i < 8; i++ {
		d := r.next()
		want := min(100*time.Millisecond<<i, time.Second)
		if d < want/2 || d > want {
			t.Fatalf("step %d: delay %s outside [%s, %s]", i, d, want/2, want)
		}
		prevCap = want
	}
	if prevCap != time.Second {
		t.Errorf("did not reach the cap")
	}
	r.reset()
	if d := r.next(); d > 100*time.Millisecond {
		t.Errorf("after reset, delay %s > base", d)
	}
}

func TestDispatcherConfigRefusesALeaseThatCanExpireMidDelivery(t *testing.T) {
	c := DefaultDispatcherConfig()
	c.Worker = "w"
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	c.Lease = c.DeliveryTimeout
	if err := c.Validate(); err == nil {
		t.Error("lease equal to the delivery timeout accepted")
	}
}
