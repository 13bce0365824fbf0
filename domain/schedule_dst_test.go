package domain_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/chronoshq/chronos/domain"
)

// occurrences lists every occurrence in [from, to) by chaining Next.
func occurrences(s *domain.Schedule, from, to time.Time) []time.Time {
	var out []time.Time
	at := from.Add(-time.Nanosecond)
	for {
		next, ok := s.Next(at)
		if !ok || !next.Before(to) {
			return out
		}
		out = append(out, next)
		at = next
	}
}

// series is n instants from start, step apart.
func series(start time.Time, step time.Duration, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = start.Add(time.Duration(i) * step)
	}
	return out
}

func sameInstants(got, want []time.Time) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !got[i].Equal(want[i]) {
			return false
		}
	}
	return true
}

func show(ts []time.Time, loc *time.Location) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.Format("01-02T15:04Z") + " (" + t.In(loc).Format("15:04 MST") + ")"
	}
	return strings.Join(parts, ", ")
}

// transitionDays are the local days, as UTC bounds, on which the clocks change.
var transitionDays = []struct {
	name, tz string
	from, to string // the local day [00:00, next 00:00) in UTC
	hours    int    // its length
}{
	{"Berlin spring forward", "Europe/Berlin", "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z", 23},
	{"Berlin fall back", "Europe/Berlin", "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z", 25},
	{"New York spring forward", "America/New_York", "2026-03-08T05:00:00Z", "2026-03-09T04:00:00Z", 23},
	{"New York fall back", "America/New_York", "2026-11-01T04:00:00Z", "2026-11-02T05:00:00Z", 25},
}

// TestScheduleDSTTransitionDays pins the exact UTC instants of a daily 02:30 alarm and
// of wildcard-hour alarms over each transition day.
func TestScheduleDSTTransitionDays(t *testing.T) {
	daily := map[string][]string{
		// 02:30 does not exist: it fires at the first instant after the gap, 03:00 CEST.
		"Berlin spring forward": {"2026-03-29T01:00:00Z"},
		// 02:30 happens twice: it fires once, at the first (CEST).
		"Berlin fall back": {"2026-10-25T00:30:00Z"},
		// 02:30 does not exist: 03:00 EDT.
		"New York spring forward": {"2026-03-08T07:00:00Z"},
		// New York repeats 01:00-01:59, so 02:30 happens once, in EST.
		"New York fall back": {"2026-11-01T07:30:00Z"},
	}
	for _, day := range transitionDays {
		t.Run(day.name, func(t *testing.T) {
			loc, _ := time.LoadLocation(day.tz)
			from, to := utc(t, day.from), utc(t, day.to)
			var want []time.Time
			for _, s := range daily[day.name] {
				want = append(want, utc(t, s))
			}
			cases := []struct {
				expr string
				want []time.Time
			}{
				{"30 2 * * *", want},
				{"0 30 2 * * *", want}, // six fields: the hour is the third
				// Wildcard hours follow elapsed time: one fire per real hour (half hour),
				// so 23 on the short day and 25 on the long one, evenly spaced in UTC.
				{"0 * * * *", series(from, time.Hour, day.hours)},
				{"@hourly", series(from, time.Hour, day.hours)},
				{"*/30 * * * *", series(from, 30*time.Minute, 2*day.hours)},
				{"0 0 * * * *", series(from, time.Hour, day.hours)},
			}
			for _, c := range cases {
				got := occurrences(mustParse(t, c.expr, day.tz), from, to)
				if !sameInstants(got, c.want) {
					t.Errorf("%q:\n got %s\nwant %s", c.expr, show(got, loc), show(c.want, loc))
				}
			}
		})
	}
}

// TestScheduleDSTWallClock spells out, in local time, what each kind of expression
// does around a transition: the policy as a user reads it.
func TestScheduleDSTWallClock(t *testing.T) {
	tests := []struct {
		name, expr, tz string
		from, to       string // UTC window
		want           []string
	}{
		{
			name: "hourly fires in both copies of the repeated hour",
			expr: "0 * * * *", tz: "Europe/Berlin",
			from: "2026-10-24T22:00:00Z", to: "2026-10-25T03:00:00Z",
			want: []string{"00:00 CEST", "01:00 CEST", "02:00 CEST", "02:00 CET", "03:00 CET"},
		},
		{
			name: "hourly has nothing in the missing hour",
			expr: "0 * * * *", tz: "Europe/Berlin",
			from: "2026-03-28T23:00:00Z", to: "2026-03-29T03:00:00Z",
			want: []string{"00:00 CET", "01:00 CET", "03:00 CEST", "04:00 CEST"},
		},
		{
			name: "half-hourly over New York's repeated 01:00 hour",
			expr: "*/30 * * * *", tz: "America/New_York",
			from: "2026-11-01T05:00:00Z", to: "2026-11-01T07:00:00Z",
			want: []string{"01:00 EDT", "01:30 EDT", "01:00 EST", "01:30 EST"},
		},
		{
			name: "stepped hours are wildcards: 02:00 twice on fall back",
			expr: "0 */2 * * *", tz: "Europe/Berlin",
			from: "2026-10-24T22:00:00Z", to: "2026-10-25T04:00:00Z",
			want: []string{"00:00 CEST", "02:00 CEST", "02:00 CET", "04:00 CET"},
		},
		{
			name: "stepped hours are wildcards: no 02:00 on spring forward",
			expr: "0 */2 * * *", tz: "Europe/Berlin",
			from: "2026-03-28T23:00:00Z", to: "2026-03-29T03:00:00Z",
			want: []string{"00:00 CET", "04:00 CEST"},
		},
		{
			name: "a range of named hours: the skipped 02:00 runs with 03:00, once",
			expr: "0 1-3 * * *", tz: "Europe/Berlin",
			from: "2026-03-28T23:00:00Z", to: "2026-03-29T22:00:00Z",
			want: []string{"01:00 CET", "03:00 CEST"},
		},
		{
			name: "a range of named hours: the repeated 02:00 runs once",
			expr: "0 1-3 * * *", tz: "Europe/Berlin",
			from: "2026-10-24T22:00:00Z", to: "2026-10-25T23:00:00Z",
			want: []string{"01:00 CEST", "02:00 CEST", "03:00 CET"},
		},
		{
			name: "0-23 names every hour: the repeated hour runs once",
			expr: "0 0-23 * * *", tz: "Europe/Berlin",
			from: "2026-10-25T00:00:00Z", to: "2026-10-25T04:00:00Z",
			want: []string{"02:00 CEST", "03:00 CET", "04:00 CET"},
		},
		{
			name: "minute list in a missing hour collapses into one fire",
			expr: "15,45 2 * * *", tz: "Europe/Berlin",
			from: "2026-03-28T23:00:00Z", to: "2026-03-29T22:00:00Z",
			want: []string{"03:00 CEST"},
		},
		{
			name: "minute list in a repeated hour fires each minute once",
			expr: "15,45 2 * * *", tz: "Europe/Berlin",
			from: "2026-10-24T22:00:00Z", to: "2026-10-25T23:00:00Z",
			want: []string{"02:15 CEST", "02:45 CEST"},
		},
		{
			name: "every minute of a named repeated hour, once each",
			expr: "* 1 * * *", tz: "America/New_York",
			from: "2026-11-01T05:58:00Z", to: "2026-11-01T07:00:00Z",
			want: []string{"01:58 EDT", "01:59 EDT"},
		},
		{
			name: "New York 01:30 on fall back fires in EDT only",
			expr: "30 1 * * *", tz: "America/New_York",
			from: "2026-11-01T04:00:00Z", to: "2026-11-02T05:00:00Z",
			want: []string{"01:30 EDT"},
		},
		{
			name: "weekday mornings keep 09:00 local across the change",
			expr: "0 9 * * 1-5", tz: "Europe/Berlin",
			from: "2026-03-27T00:00:00Z", to: "2026-03-31T00:00:00Z",
			want: []string{"09:00 CET", "09:00 CEST"},
		},
		{
			name: "@daily where midnight does not exist (Santiago)",
			expr: "@daily", tz: "America/Santiago",
			from: "2026-09-05T00:00:00Z", to: "2026-09-07T12:00:00Z",
			want: []string{"00:00 -04", "01:00 -03", "00:00 -03"},
		},
		{
			name: "@daily where 23:00 repeats before midnight (Santiago)",
			expr: "@daily", tz: "America/Santiago",
			from: "2026-04-04T00:00:00Z", to: "2026-04-06T12:00:00Z",
			want: []string{"00:00 -03", "00:00 -04", "00:00 -04"},
		},
		{
			name: "@daily where midnight does not exist (Beirut)",
			expr: "@daily", tz: "Asia/Beirut",
			from: "2026-03-27T12:00:00Z", to: "2026-03-30T12:00:00Z",
			want: []string{"00:00 EET", "01:00 EEST", "00:00 EEST"},
		},
		{
			name: "Beirut's repeated 23:00 hour fires at the first 23:30",
			expr: "30 23 * * *", tz: "Asia/Beirut",
			from: "2026-10-24T12:00:00Z", to: "2026-10-25T12:00:00Z",
			want: []string{"23:30 EEST"},
		},
		{
			name: "half-hour shift (Lord Howe): missing 02:15 fires at 02:30",
			expr: "15 2 * * *", tz: "Australia/Lord_Howe",
			from: "2026-10-03T12:00:00Z", to: "2026-10-04T12:00:00Z",
			want: []string{"02:30 +11"},
		},
		{
			name: "half-hour shift (Lord Howe): hourly keeps elapsed time",
			expr: "0 * * * *", tz: "Australia/Lord_Howe",
			from: "2026-10-03T14:00:00Z", to: "2026-10-03T17:30:00Z",
			want: []string{"01:00 +1030", "03:00 +11", "04:00 +11"},
		},
		{
			name: "a whole skipped day (Apia, 2011-12-30) fires once, at the next midnight",
			expr: "0 12 * * *", tz: "Pacific/Apia",
			from: "2011-12-29T12:00:00Z", to: "2011-12-31T12:00:00Z",
			want: []string{"12:00 -10", "00:00 +14", "12:00 +14"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc, err := time.LoadLocation(tc.tz)
			if err != nil {
				t.Fatal(err)
			}
			got := occurrences(mustParse(t, tc.expr, tc.tz), utc(t, tc.from), utc(t, tc.to))
			var local []string
			for _, g := range got {
				local = append(local, g.In(loc).Format("15:04 MST"))
			}
			if strings.Join(local, ", ") != strings.Join(tc.want, ", ") {
				t.Errorf("%q in %s:\n got %v\nwant %v", tc.expr, tc.tz, local, tc.want)
			}
		})
	}
}

// TestScheduleDSTRepeatedHourFromInside asks for the next occurrence from inside the
// second copy of a repeated hour: a named time already fired in the first copy, so it
// waits for the next day, while the first time after the repeat still fires today.
func TestScheduleDSTRepeatedHourFromInside(t *testing.T) {
	after := utc(t, "2026-10-25T01:15:00Z") // 02:15 CET, the second 02:15 in Berlin
	tests := []struct{ expr, want string }{
		{"30 2 * * *", "2026-10-26T01:30:00Z"},   // 02:30 CEST already happened
		{"0 3 * * *", "2026-10-25T02:00:00Z"},    // 03:00 CET
		{"30 * * * *", "2026-10-25T01:30:00Z"},   // wildcard: the second 02:30
		{"@every 10m", "2026-10-25T01:25:00Z"},   // elapsed
		{"*/20 2 * * *", "2026-10-26T01:00:00Z"}, // all of 02:xx fired in CEST
	}
	for _, tc := range tests {
		got, ok := mustParse(t, tc.expr, "Europe/Berlin").Next(after)
		if !ok || !got.Equal(utc(t, tc.want)) {
			t.Errorf("%q: Next(02:15 CET) = %s %v, want %s", tc.expr, got, ok, tc.want)
		}
	}
}

func TestScheduleEveryIgnoresDST(t *testing.T) {
	s := mustParse(t, "@every 1h", "Europe/Berlin")
	at := utc(t, "2026-10-24T23:00:00Z") // 01:00 CEST
	var got []time.Time
	for i := 0; i < 4; i++ {
		at, _ = s.Next(at)
		got = append(got, at)
	}
	if want := series(utc(t, "2026-10-25T00:00:00Z"), time.Hour, 4); !sameInstants(got, want) {
		t.Errorf("@every 1h over fall back: got %v, want %v", got, want)
	}
}

// Reference model: the policy stated as slowly and plainly as possible, by stepping
// through every UTC minute and reading the zone's wall clock. Next must agree with it.

type reference struct {
	fields *cron.SpecSchedule
	named  bool // the hour field names hours (no "*" or "?")
	loc    *time.Location
}

func newReference(t testing.TB, expr, tz string) reference {
	t.Helper()
	parsed, err := cron.ParseStandard(expr)
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	fields, ok := parsed.(*cron.SpecSchedule)
	if !ok {
		t.Fatalf("reference: %q is not a calendar expression", expr)
	}
	named := expr != "@hourly"
	if f := strings.Fields(expr); len(f) == 5 {
		named = !strings.ContainsAny(f[1], "*?")
	}
	loc, _ := time.LoadLocation(tz)
	return reference{fields, named, loc}
}

func bit(set uint64, n int) bool { return set&(1<<uint(n)) != 0 }

// matches reads w as a wall-clock time (its UTC fields).
func (r reference) matches(w time.Time) bool {
	const star = 1 << 63
	f := r.fields
	if !bit(f.Minute, w.Minute()) || !bit(f.Hour, w.Hour()) || !bit(f.Month, int(w.Month())) {
		return false
	}
	dom, dow := bit(f.Dom, w.Day()), bit(f.Dow, int(w.Weekday()))
	if f.Dom&star != 0 || f.Dow&star != 0 {
		return dom && dow
	}
	return dom || dow
}

func (r reference) wall(t time.Time) time.Time {
	_, off := t.In(r.loc).Zone()
	return t.Add(time.Duration(off) * time.Second).UTC()
}

// occurrences in [from, to); every zone used has whole-minute offsets and changes.
func (r reference) occurrences(from, to time.Time) []time.Time {
	var out []time.Time
	t := from.Add(-3 * 24 * time.Hour).Truncate(time.Minute)
	high := r.wall(t) // the latest wall-clock reading so far
	for ; t.Before(to); t = t.Add(time.Minute) {
		w := r.wall(t)
		fire := false
		if r.named {
			// A named time fires when the clock first reaches it (or jumps past it).
			for m := high.Add(time.Minute); !m.After(w); m = m.Add(time.Minute) {
				fire = fire || r.matches(m)
			}
		} else {
			fire = r.matches(w) // wildcard hours: whenever the clock shows a match
		}
		if w.After(high) {
			high = w
		}
		if fire && !t.Before(from) {
			out = append(out, t)
		}
	}
	return out
}

// TestScheduleMatchesReferenceAroundTransitions compares Next with the reference model
// over three days around transitions in zones with hour, half-hour, 45-minute and
// midnight changes, and a whole skipped day, for fixed and random expressions.
func TestScheduleMatchesReferenceAroundTransitions(t *testing.T) {
	windows := []struct {
		tz  string
		day string // local date of the change
	}{
		{"Europe/Berlin", "2026-03-29"}, {"Europe/Berlin", "2026-10-25"},
		{"America/New_York", "2026-03-08"}, {"America/New_York", "2026-11-01"},
		{"America/Santiago", "2026-04-04"}, {"America/Santiago", "2026-09-06"},
		{"Asia/Beirut", "2026-03-29"}, {"Asia/Beirut", "2026-10-24"},
		{"Australia/Lord_Howe", "2026-04-05"}, {"Australia/Lord_Howe", "2026-10-04"},
		{"Pacific/Chatham", "2026-04-05"}, {"Pacific/Chatham", "2026-09-27"},
		{"America/Havana", "2026-03-08"}, {"America/Havana", "2026-11-01"},
		{"Pacific/Apia", "2011-12-29"},
	}
	fixed := []string{
		"30 2 * * *", "0 * * * *", "*/30 * * * *", "0 */2 * * *", "0 1-3 * * *",
		"15,45 2 * * *", "* 2 * * *", "0 0-23 * * *", "@daily", "@hourly", "59 23 * * *",
		"0 0 * * *", "30 0 * * *", "45 1 * * *", "0 12 * * *", "*/20 1,2 * * *",
		"0 9 * * 1-5", "0 0 * * 0", "0 0 31 * *", "0 3 * * 6",
	}
	r := rand.New(rand.NewSource(1))
	for _, win := range windows {
		loc, err := time.LoadLocation(win.tz)
		if err != nil {
			t.Fatal(err)
		}
		day, _ := time.ParseInLocation("2006-01-02 15:04", win.day+" 12:00", loc)
		from, to := day.Add(-36*time.Hour).UTC(), day.Add(36*time.Hour).UTC()

		exprs := append([]string(nil), fixed...)
		for len(exprs) < len(fixed)+25 {
			if e := randomExpr(r); !strings.HasPrefix(e, "@every") {
				exprs = append(exprs, e)
			}
		}
		for _, expr := range exprs {
			name := fmt.Sprintf("%s %s %q", win.tz, win.day, expr)
			s := mustParse(t, expr, win.tz)
			want := newReference(t, expr, win.tz).occurrences(from, to)
			if got := occurrences(s, from, to); !sameInstants(got, want) {
				t.Errorf("%s:\n got %s\nwant %s", name, show(got, loc), show(want, loc))
				continue
			}
			// From arbitrary instants too, not only from the previous occurrence.
			for i := 0; i < 20; i++ {
				at := from.Add(time.Duration(r.Int63n(int64(to.Sub(from)))))
				var expect time.Time
				for _, w := range want {
					if w.After(at) {
						expect = w
						break
					}
				}
				got, ok := s.Next(at)
				if !expect.IsZero() && (!ok || !got.Equal(expect)) {
					t.Errorf("%s: Next(%s) = %s %v, want %s", name, at, got, ok, expect)
				}
			}
		}
	}
}
