package contract

import (
	"sync"
	"testing"
	"time"
)

func TestManualClock(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.FixedZone("X", 3600))
	c := NewManualClock(start)
	if got := c.Now(); !got.Equal(start) || got.Location() != time.UTC {
		t.Fatalf("Now = %v, want %v in UTC", got, start)
	}
	if got := c.Advance(90 * time.Second); !got.Equal(start.Add(90*time.Second)) || !c.Now().Equal(got) {
		t.Errorf("Advance returned %v, Now %v; want %v", got, c.Now(), start.Add(90*time.Second))
	}
	c.Set(start.Add(-time.Hour))
	if got := c.Now(); !got.Equal(start.Add(-time.Hour)) {
		t.Errorf("after Set backwards, Now = %v", got)
	}

	// Concurrent use is safe and loses no advance (run with -race).
	c.Set(start)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				c.Advance(time.Millisecond)
				_ = c.Now()
			}
		}()
	}
	wg.Wait()
	if got := c.Now().Sub(start); got != 800*time.Millisecond {
		t.Errorf("after 800 concurrent 1ms advances the clock moved %v", got)
	}
}

func TestNewIDIncreasingUUIDv7(t *testing.T) {
	prev := ""
	for range 10000 {
		id := newID()
		if len(id) != 36 || id[14] != '7' || id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-' {
			t.Fatalf("newID() = %q, not a version 7 UUID", id)
		}
		if v := id[19]; v != '8' && v != '9' && v != 'a' && v != 'b' {
			t.Fatalf("newID() = %q, wrong variant", id)
		}
		if id <= prev {
			t.Fatalf("newID() = %q after %q: not increasing", id, prev)
		}
		prev = id
	}
}
