package domain

import (
	"fmt"
	"testing"
	"time"
)

// A cached schedule answers exactly as a freshly parsed one, and the cache stays
// bounded however many distinct schedules pass through it.
func TestScheduleCacheSameAnswersAndBounded(t *testing.T) {
	from := time.Date(2026, time.March, 29, 0, 0, 0, 0, time.UTC)
	first, err := ParseSchedule("30 2 * * *", "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseSchedule("30 2 * * *", "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := parseSchedule("30 2 * * *", "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	if first != again {
		t.Error("a repeated parse did not come from the cache")
	}
	a, _ := again.Next(from)
	b, _ := fresh.Next(from)
	if !a.Equal(b) {
		t.Errorf("cached Next = %s, fresh Next = %s", a, b)
	}
	if _, err := ParseSchedule("61 * * * *", "UTC"); err == nil {
		t.Error("a bad expression parsed")
	}
	for i := range scheduleCacheSize + 10 {
		if _, err := ParseSchedule(fmt.Sprintf("@every %ds", i+1), "UTC"); err != nil {
			t.Fatal(err)
		}
	}
	scheduleCache.RLock()
	n := len(scheduleCache.m)
	scheduleCache.RUnlock()
	if n > scheduleCacheSize {
		t.Errorf("cache holds %d schedules, bound is %d", n, scheduleCacheSize)
	}
}
