package dispatch

import (
	"testing"
	"time"
)

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
	c := DefaultConfig()
	c.Worker = "w"
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	c.Lease = c.DeliveryTimeout
	if err := c.Validate(); err == nil {
		t.Error("lease equal to the delivery timeout accepted")
	}
}
