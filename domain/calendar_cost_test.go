package domain

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// A walk past excluded days tests every calendar a series names on every day it
// crosses, in the dispatcher (after each fire, a trigger's too) as in previews and
// creates. What one day costs must not grow with a calendar's entries, or an owner's
// eight calendars of a thousand ranges each make every walk a node's CPU for a fifth
// of a second (another owner's wakes waited behind them). The walk below crosses five
// years less a day; it is timed with calendars of one range and of a thousand, the
// fastest of several runs each (the machine's load falls on both alike).
func TestCalendarWalkCostDoesNotGrowWithEntries(t *testing.T) {
	now := utc("2026-01-01T00:00:00Z")
	cals := func(entries int) []Calendar {
		var out []Calendar
		for i := range MaxSeriesCalendars - 1 {
			var ranges []DateRange
			for j := range entries {
				day := time.Date(1900, 1, 1+2*j, 0, 0, 0, 0, time.UTC).Format(dateLayout)
				ranges = append(ranges, DateRange{day, day})
			}
			out = append(out, cal(fmt.Sprintf("c%d", i), "UTC", nil, nil, ranges...))
		}
		// The last one excludes the next five years but a day: every walk crosses them.
		return append(out, cal("long", "UTC", nil, nil, DateRange{"2026-01-01", "2030-12-30"}))
	}
	walk := func(cs []Calendar) time.Duration {
		best := time.Duration(1<<63 - 1)
		for range 5 {
			began := time.Now()
			pv, err := PreviewExcluding("0 9 * * *", "UTC", cs, now, 1)
			took := time.Since(began)
			if err != nil || len(pv) != 1 || !pv[0].Equal(utc("2030-12-31T09:00:00Z")) {
				t.Fatalf("preview: %v %v, want 2030-12-31T09:00:00Z", pv, err)
			}
			best = min(best, took)
		}
		return best
	}
	small, large := walk(cals(1)), walk(cals(DefaultMaxCalendarEntries))
	t.Logf("a walk of five years past 8 calendars: %s with 1 entry each, %s with %d", small, large, DefaultMaxCalendarEntries)
	if large > 4*small+2*time.Millisecond {
		t.Errorf("calendars of %d entries made the walk %.1f times as long as calendars of 1 (%s against %s); a day's test must search a calendar, not scan it",
			DefaultMaxCalendarEntries, float64(large)/float64(small), large, small)
	}
}

// The compiled calendar answers as the calendar's own lists say, whatever their order
// and overlaps: a day in any range, on a listed date or weekday, and no other.
func TestExclusionSearchMatchesTheLists(t *testing.T) {
	c := cal("c", "UTC", []string{"2026-03-10", "2026-01-05"}, []int{0},
		DateRange{"2026-02-01", "2026-02-20"}, DateRange{"2026-01-10", "2026-01-12"}, DateRange{"2026-02-05", "2026-02-06"},
		DateRange{"2025-12-30", "2026-01-02"})
	x, ok := compile(c)
	if !ok {
		t.Fatal("compile failed")
	}
	for d := utc("2025-12-01T12:00:00Z"); d.Before(utc("2026-04-01T00:00:00Z")); d = d.AddDate(0, 0, 1) {
		day := d.Format(dateLayout)
		want := d.Weekday() == time.Sunday || slices.Contains(c.ExcludeDates, day)
		for _, r := range c.ExcludeRanges {
			want = want || (r.From <= day && day <= r.To)
		}
		if got := x.excludes(d); got != want {
			t.Errorf("%s: excludes %v, want %v", day, got, want)
		}
	}
}
