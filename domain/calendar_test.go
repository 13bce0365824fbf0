package domain

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func cal(name, tz string, dates []string, weekdays []int, ranges ...DateRange) Calendar {
	return Calendar{Owner: "alice", Name: name, Timezone: tz, ExcludeDates: dates, ExcludeWeekdays: weekdays, ExcludeRanges: ranges}
}

func TestValidateCalendar(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     Calendar
		field string // "" when valid
	}{
		{"valid", cal("holidays", "Europe/Berlin", []string{"2026-12-25"}, []int{0, 6}, DateRange{"2026-12-24", "2026-12-31"}), ""},
		{"bad name", cal("Holidays", "UTC", nil, nil), "name"},
		{"bad zone", cal("h", "Mars/Base", nil, nil), "timezone"},
		{"empty zone", cal("h", "", nil, nil), "timezone"},
		{"bad date", cal("h", "UTC", []string{"2026-12-25", "2026-12-25", "2026-02-30", "x"}, nil), "exclude_dates[2]"},
		{"unpadded date", cal("h", "UTC", []string{"2026-1-5"}, nil), "exclude_dates[0]"},
		{"bad weekday", cal("h", "UTC", nil, []int{1, 7}), "exclude_weekdays[1]"},
		{"range from", cal("h", "UTC", nil, nil, DateRange{"nope", "2026-01-01"}), "exclude_ranges[0].from"},
		{"range backwards", cal("h", "UTC", nil, nil, DateRange{"2026-01-02", "2026-01-01"}), "exclude_ranges[0].to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateCalendar(tc.c)
			var ve *ValidationError
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.field != "" && (!errors.As(err, &ve) || ve.Field != tc.field):
				t.Fatalf("err = %v, want a refusal naming %q", err, tc.field)
			}
		})
	}
}

// A calendar over the node's entries refused, naming the list that passes the limit;
// at the limit, or with no limit, accepted.
func TestCalendarLimitsCheckEntries(t *testing.T) {
	dates := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "2026-01-01"
		}
		return out
	}
	ranges := func(n int) []DateRange { return make([]DateRange, n) }
	l := CalendarLimits{Entries: 10}
	for _, tc := range []struct {
		name  string
		l     CalendarLimits
		c     Calendar
		field string // "" when accepted
	}{
		{"at the limit", l, cal("h", "UTC", dates(5), []int{0, 1}, ranges(3)...), ""},
		{"dates alone", l, cal("h", "UTC", dates(11), nil), "exclude_dates"},
		{"weekdays pass it", l, cal("h", "UTC", dates(8), []int{0, 1, 2}), "exclude_weekdays"},
		{"ranges pass it", l, cal("h", "UTC", dates(5), []int{0}, ranges(5)...), "exclude_ranges"},
		{"no limit", CalendarLimits{}, cal("h", "UTC", dates(5000), nil), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.l.CheckEntries(tc.c)
			var ve *ValidationError
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.field != "" && (!errors.As(err, &ve) || ve.Field != tc.field || !strings.Contains(ve.Message, "at most 10 entries")):
				t.Fatalf("err = %v, want a refusal naming %q and the limit", err, tc.field)
			}
		})
	}
}

// The refusal of an owner's calendar past the limit names the field and the limit,
// and says no wait helps.
func TestCalendarsOverLimit(t *testing.T) {
	var le *LimitError
	err := CalendarsOverLimit(100)
	if !errors.Is(err, ErrQuotaExceeded) || !errors.As(err, &le) || !le.Permanent || le.Field != "name" || !strings.Contains(le.Message, "100 calendars") {
		t.Errorf("CalendarsOverLimit(100) = %#v", err)
	}
}

func TestCalendarExcludesDaysInItsOwnZone(t *testing.T) {
	berlin := cal("h", "Europe/Berlin", []string{"2026-03-29", "2026-10-25"}, nil)
	ny := cal("h", "America/New_York", []string{"2026-03-08", "2026-11-01"}, nil)
	weekend := cal("w", "Asia/Tokyo", nil, []int{0, 6})
	xmas := cal("x", "UTC", nil, nil, DateRange{"2026-12-24", "2026-12-31"})
	for _, tc := range []struct {
		c    Calendar
		at   string
		want bool
	}{
		// Spring forward in Berlin: the day is 23 hours long, 2026-03-28T23:00Z to 2026-03-29T22:00Z.
		{berlin, "2026-03-28T22:59:59Z", false},
		{berlin, "2026-03-28T23:00:00Z", true},
		{berlin, "2026-03-29T21:59:59Z", true},
		{berlin, "2026-03-29T22:00:00Z", false},
		// Fall back in Berlin: 25 hours, 2026-10-24T22:00Z to 2026-10-25T23:00Z.
		{berlin, "2026-10-24T21:59:59Z", false},
		{berlin, "2026-10-25T22:30:00Z", true},
		{berlin, "2026-10-25T23:00:00Z", false},
		// New York: spring forward 2026-03-08 (05:00Z to 04:00Z next day), fall back 2026-11-01 (04:00Z to 05:00Z next day).
		{ny, "2026-03-08T04:59:59Z", false},
		{ny, "2026-03-08T05:00:00Z", true},
		{ny, "2026-03-09T03:59:59Z", true},
		{ny, "2026-03-09T04:00:00Z", false},
		{ny, "2026-11-02T04:59:59Z", true},
		{ny, "2026-11-02T05:00:00Z", false},
		// Saturday 2026-06-06 in Tokyo begins at 15:00Z on Friday.
		{weekend, "2026-06-05T14:59:59Z", false},
		{weekend, "2026-06-05T15:00:00Z", true},
		{weekend, "2026-06-07T14:59:59Z", true},
		{weekend, "2026-06-07T15:00:00Z", false},
		{xmas, "2026-12-23T23:59:59Z", false},
		{xmas, "2026-12-24T00:00:00Z", true},
		{xmas, "2026-12-31T23:59:59Z", true},
		{xmas, "2027-01-01T00:00:00Z", false},
	} {
		if got := tc.c.Excludes(utc(tc.at)); got != tc.want {
			t.Errorf("%s %v: Excludes(%s) = %t, want %t", tc.c.Timezone, tc.c.ExcludeDates, tc.at, got, tc.want)
		}
	}
}

// deliveries runs a series from its current occurrence, delivering each wake at its
// due time with the calendars cals, and returns the occurrences woken and the
// excluded events, n wakes at most.
func deliveries(t *testing.T, a Alarm, cals []Calendar, n int) (woken []time.Time, excluded []Event, end Alarm) {
	t.Helper()
	for i := 0; len(woken) < n && a.Status == StatusActive; i++ {
		if i > 10*n {
			t.Fatal("the series made no progress")
		}
		now := a.NextFireAt
		claimed := fxClaim(a, fxWorker, now)
		f := BeginExcluding(claimed, cals, now, Policy{})
		var tr Transition
		if f.Skip != nil {
			tr = *f.Skip
		} else {
			woken = append(woken, claimed.ScheduledFor)
			tr = Decide(f, Delivered(), now, Policy{})
		}
		for _, e := range tr.Events {
			if e.Type == EventExcluded {
				excluded = append(excluded, e)
			}
		}
		a = tr.ApplyTo(claimed)
	}
	return woken, excluded, a
}

func TestSeriesSkipsExcludedDays(t *testing.T) {
	holidays := cal("holidays", "Europe/Berlin", []string{"2026-03-30", "2026-12-25"}, nil, DateRange{"2026-12-28", "2026-12-31"})
	weekend := cal("weekend", "Europe/Berlin", nil, []int{0, 6})
	nyHoliday := cal("ny", "America/New_York", []string{"2026-11-02"}, nil)
	for _, tc := range []struct {
		name     string
		expr, tz string
		cals     []Calendar
		names    []string
		from     string // the series' current occurrence
		want     []string
		excluded int // excluded events
	}{
		{
			name: "a holiday on the day after spring forward, Berlin",
			expr: "30 2 * * *", tz: "Europe/Berlin", cals: []Calendar{holidays}, names: []string{"holidays"},
			from: "2026-03-28T01:30:00Z",
			// 03-29 02:30 does not exist: 03:00 CEST (01:00Z); 03-30 is a holiday.
			want:     []string{"2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z", "2026-03-31T00:30:00Z"},
			excluded: 1,
		},
		{
			name: "a holiday on the spring-forward day itself, Berlin, hourly",
			expr: "0 * * * *", tz: "UTC", cals: []Calendar{cal("dst", "Europe/Berlin", []string{"2026-03-29"}, nil)}, names: []string{"dst"},
			from: "2026-03-28T22:00:00Z",
			want: []string{"2026-03-28T22:00:00Z", "2026-03-29T22:00:00Z", "2026-03-29T23:00:00Z"},
			// the 23-hour Berlin day: 23:00Z to 22:00Z
			excluded: 1,
		},
		{
			name: "a holiday on the fall-back day, New York",
			expr: "30 1 * * *", tz: "America/New_York", cals: []Calendar{cal("ny", "America/New_York", []string{"2026-11-01"}, nil)}, names: []string{"ny"},
			from:     "2026-10-31T05:30:00Z",
			want:     []string{"2026-10-31T05:30:00Z", "2026-11-02T06:30:00Z"},
			excluded: 1,
		},
		{
			name: "weekdays and a range, one event per run",
			expr: "0 9 * * *", tz: "Europe/Berlin", cals: []Calendar{holidays, weekend}, names: []string{"holidays", "weekend"},
			from: "2026-12-23T08:00:00Z",
			// 24 Thu, 25 holiday, 26-27 weekend, 28-31 range, 2027-01-01 Fri, 02-03 weekend, 04 Mon.
			want:     []string{"2026-12-23T08:00:00Z", "2026-12-24T08:00:00Z", "2027-01-01T08:00:00Z", "2027-01-04T08:00:00Z"},
			excluded: 2,
		},
		{
			name: "series in Tokyo, calendar in New York",
			expr: "0 12 * * *", tz: "Asia/Tokyo", cals: []Calendar{nyHoliday}, names: []string{"ny"},
			// 12:00 Tokyo is 03:00Z: 2026-11-02T03:00Z is still 2026-11-01 (22:00 EST) in New York,
			// and 2026-11-03T03:00Z is 2026-11-02 22:00 there: the excluded one.
			from:     "2026-11-01T03:00:00Z",
			want:     []string{"2026-11-01T03:00:00Z", "2026-11-02T03:00:00Z", "2026-11-04T03:00:00Z"},
			excluded: 1,
		},
		{
			name: "a calendar the series does not name changes nothing",
			expr: "0 9 * * *", tz: "UTC", cals: []Calendar{weekend}, names: []string{"holidays"},
			from: "2026-06-05T09:00:00Z",
			want: []string{"2026-06-05T09:00:00Z", "2026-06-06T09:00:00Z"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := series(t, tc.expr, tc.tz, Series{ExcludeCalendars: tc.names}, utc("2026-01-01T00:00:00Z"), utc(tc.from))
			woken, excluded, _ := deliveries(t, a, tc.cals, len(tc.want))
			if got := times(woken); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("woken\n %v\nwant\n %v", got, tc.want)
			}
			if len(excluded) != tc.excluded {
				t.Fatalf("%d excluded events, want %d: %v", len(excluded), tc.excluded, excluded)
			}
		})
	}
}

func times(ts []time.Time) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.UTC().Format(time.RFC3339)
	}
	return out
}

// A calendar that changes after the series computed its next occurrence applies when
// that occurrence comes due: the claim drops it, records one event, and moves on.
func TestClaimHonoursACalendarChangedSinceTheNextOccurrence(t *testing.T) {
	a := series(t, "0 9 * * *", "UTC", Series{ExcludeCalendars: []string{"h"}}, utc("2026-01-01T00:00:00Z"), utc("2026-05-01T09:00:00Z"))
	changed := []Calendar{cal("h", "UTC", nil, nil, DateRange{"2026-05-01", "2026-05-03"})}
	now := utc("2026-05-01T09:00:00Z")
	f := BeginExcluding(fxClaim(a, fxWorker, now), changed, now, Policy{})
	if f.Skip == nil || f.Advance != nil {
		t.Fatalf("firing: skip %v", f.Skip)
	}
	s := *f.Skip
	if s.Kind != TransitionExcluded || !s.ScheduledFor.Equal(utc("2026-05-04T09:00:00Z")) || s.Status != StatusActive {
		t.Fatalf("skip: %+v", s)
	}
	if len(s.Events) != 1 || s.Events[0].Type != EventExcluded || !s.Events[0].ScheduledFor.Equal(now) ||
		!strings.Contains(s.Events[0].Message, "until 2026-05-04T09:00:00Z") {
		t.Fatalf("events: %+v", s.Events)
	}
	// A retry of an occurrence begun before the change is delivered; so is a trigger.
	retry := fxClaim(a, fxWorker, now)
	retry.FailureCount = 1
	if f := BeginExcluding(retry, changed, now, Policy{}); f.Skip != nil {
		t.Fatal("a retry was excluded")
	}
	trig := a
	trig.ScheduledFor = utc("2026-05-01T10:17:00Z")
	if f := BeginExcluding(fxClaim(trig, fxWorker, now), changed, now, Policy{}); f.Skip != nil {
		t.Fatal("a triggered occurrence was excluded")
	}
}

func TestCalendarsThatExcludeEveryDay(t *testing.T) {
	all := []Calendar{cal("all", "UTC", nil, []int{0, 1, 2, 3, 4, 5, 6})}
	now := utc("2026-01-01T00:00:00Z")
	a, err := NewAlarm("id", Spec{Owner: "alice", Kind: KindCron, CronExpr: "0 9 * * *", Series: Series{ExcludeCalendars: []string{"all"}}},
		now, Defaults{MaxFailures: 3})
	if err != nil {
		t.Fatal(err)
	}
	var ve *ValidationError
	if _, err := WithCalendars(a, all, now); !errors.As(err, &ve) || ve.Field != "exclude_calendars" {
		t.Fatalf("create: %v, want a refusal naming exclude_calendars", err)
	}
	if _, err := WithCalendars(a, nil, now); !errors.As(err, &ve) || ve.Field != "exclude_calendars[0]" {
		t.Fatalf("create naming no calendar: %v", err)
	}
	// Five years of weekdays in a range but one Saturday left: accepted, and it is the first.
	ok, err := WithCalendars(a, []Calendar{cal("all", "UTC", nil, []int{1, 2, 3, 4, 5}, DateRange{"2026-01-01", "2026-12-31"})}, now)
	if err != nil || !ok.ScheduledFor.Equal(utc("2027-01-02T09:00:00Z")) {
		t.Fatalf("create: %v at %s", err, ok.ScheduledFor)
	}
	// PATCH: the same refusal.
	every := append(all, cal("every", "UTC", nil, []int{0, 1, 2, 3, 4, 5, 6}))
	if _, _, err := UpdateExcluding(ok, Patch{ExcludeCalendars: &[]string{"every"}}, every, now); !errors.As(err, &ve) || ve.Field != "exclude_calendars" {
		t.Fatalf("update: %v", err)
	}
	// A calendar edited afterwards to exclude every day: the series pauses itself at its
	// next occurrence, saying why, instead of walking forever.
	now = ok.NextFireAt
	f := BeginExcluding(fxClaim(ok, fxWorker, now), all, now, Policy{})
	if f.Skip == nil || f.Skip.Status != StatusPaused || !strings.Contains(f.Skip.PausedReason, "exclude_calendars") {
		t.Fatalf("skip: %+v", f.Skip)
	}
}

func TestUpcomingPreviewAndBackfillHonourCalendars(t *testing.T) {
	weekend := []Calendar{cal("weekend", "UTC", nil, []int{0, 6})}
	a := series(t, "0 9 * * *", "UTC", Series{ExcludeCalendars: []string{"weekend"}}, utc("2026-01-01T00:00:00Z"), utc("2026-06-06T09:00:00Z"))
	up := UpcomingExcluding(a, weekend, utc("2026-06-06T00:00:00Z"), 3)
	var got []time.Time
	for _, o := range up {
		got = append(got, o.ScheduledFor)
	}
	if want := "2026-06-08T09:00:00Z 2026-06-09T09:00:00Z 2026-06-10T09:00:00Z"; strings.Join(times(got), " ") != want {
		t.Fatalf("upcoming %v, want %s", times(got), want)
	}
	pv, err := PreviewExcluding("0 9 * * *", "UTC", weekend, utc("2026-06-05T10:00:00Z"), 2)
	if err != nil || strings.Join(times(pv), " ") != "2026-06-08T09:00:00Z 2026-06-09T09:00:00Z" {
		t.Fatalf("preview %v %v", times(pv), err)
	}
	if _, err := PreviewExcluding("0 9 * * *", "UTC", []Calendar{cal("all", "UTC", nil, []int{0, 1, 2, 3, 4, 5, 6})}, utc("2026-06-05T10:00:00Z"), 2); err == nil {
		t.Fatal("preview of a series excluded every day")
	}
	b, n, err := BackfillExcluding(a, weekend, "b", utc("2026-06-05T00:00:00Z"), utc("2026-06-09T00:00:00Z"), utc("2026-06-10T00:00:00Z"))
	if err != nil || n != 2 || !b.ScheduledFor.Equal(utc("2026-06-05T09:00:00Z")) || len(b.Series.ExcludeCalendars) != 1 {
		t.Fatalf("backfill %v: %d from %s, %v", err, n, b.ScheduledFor, b.Series.ExcludeCalendars)
	}
}

func TestSeriesCalendarNames(t *testing.T) {
	for _, tc := range []struct {
		names []string
		field string
	}{
		{[]string{"a", "b"}, ""},
		{[]string{"a", "B"}, "exclude_calendars[1]"},
		{[]string{"a", "a"}, "exclude_calendars[1]"},
		{[]string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}, "exclude_calendars"},
	} {
		_, err := NewAlarm("id", Spec{Owner: "o", Kind: KindCron, CronExpr: "@daily", Series: Series{ExcludeCalendars: tc.names}},
			utc("2026-01-01T00:00:00Z"), Defaults{MaxFailures: 1})
		var ve *ValidationError
		if (tc.field == "") != (err == nil) || (err != nil && (!errors.As(err, &ve) || ve.Field != tc.field)) {
			t.Errorf("%v: %v, want field %q", tc.names, err, tc.field)
		}
	}
	if (Series{ExcludeCalendars: []string{"a"}}).IsZero() || !(Series{}).IsZero() {
		t.Fatal("IsZero")
	}
}
