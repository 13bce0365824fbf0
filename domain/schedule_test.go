package domain_test

import (
	"errors"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

func mustParse(t testing.TB, expr, tz string) *domain.Schedule {
	t.Helper()
	s, err := domain.ParseSchedule(expr, tz)
	if err != nil {
		t.Fatalf("ParseSchedule(%q, %q): %v", expr, tz, err)
	}
	return s
}

func utc(t testing.TB, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return at.UTC()
}

func TestScheduleNext(t *testing.T) {
	// A Thursday, mid-minute, so "strictly after" and rounding both show.
	const after = "2026-01-15T10:07:30Z"
	tests := []struct {
		expr, tz string
		after    string // default: after
		want     string
	}{
		{expr: "* * * * *", tz: "UTC", want: "2026-01-15T10:08:00Z"},
		{expr: "*/15 * * * *", tz: "UTC", want: "2026-01-15T10:15:00Z"},
		{expr: "0,7,8 * * * *", tz: "UTC", want: "2026-01-15T10:08:00Z"},
		{expr: "0 * * * *", tz: "UTC", after: "2026-01-15T10:00:00Z", want: "2026-01-15T11:00:00Z"},
		{expr: "0 9 * * 1-5", tz: "UTC", want: "2026-01-16T09:00:00Z"},
		{expr: "0 9 * * MON-FRI", tz: "UTC", want: "2026-01-16T09:00:00Z"},
		{expr: "0 9 * * 1-5", tz: "UTC", after: "2026-01-16T09:00:00Z", want: "2026-01-19T09:00:00Z"},
		{expr: "30 8 1 * *", tz: "UTC", want: "2026-02-01T08:30:00Z"},
		{expr: "0 0 1 1 *", tz: "UTC", want: "2027-01-01T00:00:00Z"},
		{expr: "0 0 29 2 *", tz: "UTC", want: "2028-02-29T00:00:00Z"},
		{expr: "0 12 * JAN,jul *", tz: "UTC", want: "2026-01-15T12:00:00Z"},
		{expr: "0 1-3 * * *", tz: "UTC", want: "2026-01-16T01:00:00Z"},
		{expr: "0 0-23 * * *", tz: "UTC", want: "2026-01-15T11:00:00Z"},
		{expr: "0 ? * * *", tz: "UTC", want: "2026-01-15T11:00:00Z"},
		// robfig's day rule: with neither day field starred, a day matches either one.
		{expr: "0 0 13 * 5", tz: "UTC", want: "2026-01-16T00:00:00Z"},  // a Friday, not the 13th
		{expr: "0 0 13 * *", tz: "UTC", want: "2026-02-13T00:00:00Z"},  // day-of-week starred: the 13th only
		{expr: "0 0 */2 * 1", tz: "UTC", want: "2026-01-17T00:00:00Z"}, // "*/2" is no star: odd days or Mondays
		{expr: "0 0 * * 0", tz: "UTC", want: "2026-01-18T00:00:00Z"},   // Sunday
		{expr: "@hourly", tz: "UTC", want: "2026-01-15T11:00:00Z"},     //
		{expr: "@daily", tz: "UTC", want: "2026-01-16T00:00:00Z"},      //
		{expr: "@midnight", tz: "UTC", want: "2026-01-16T00:00:00Z"},   //
		{expr: "@weekly", tz: "UTC", want: "2026-01-18T00:00:00Z"},     // Sunday midnight
		{expr: "@monthly", tz: "UTC", want: "2026-02-01T00:00:00Z"},    //
		{expr: "@yearly", tz: "UTC", want: "2027-01-01T00:00:00Z"},     //
		{expr: "@annually", tz: "UTC", want: "2027-01-01T00:00:00Z"},   //
		{expr: "  @daily\t", tz: "UTC", want: "2026-01-16T00:00:00Z"},  // surrounding space is trimmed
		{expr: "@every 90s", tz: "UTC", want: "2026-01-15T10:09:00Z"},  // elapsed from after
		{expr: "@every 1s", tz: "UTC", after: "2026-01-15T10:07:30.75Z", want: "2026-01-15T10:07:31Z"},
		{expr: "@every 1h30m", tz: "Asia/Tokyo", want: "2026-01-15T11:37:30Z"}, // zone plays no part
		// Six fields: a leading seconds field.
		{expr: "* * * * * *", tz: "UTC", want: "2026-01-15T10:07:31Z"},
		{expr: "* * * * * *", tz: "UTC", after: "2026-01-15T10:07:30.25Z", want: "2026-01-15T10:07:31Z"},
		{expr: "*/20 * * * * *", tz: "UTC", want: "2026-01-15T10:07:40Z"},
		{expr: "15 0 9 * * 1-5", tz: "UTC", want: "2026-01-16T09:00:15Z"},
		{expr: "0 0 9 * * *", tz: "Europe/Paris", want: "2026-01-16T08:00:00Z"},
		// Zones: the expression is read on the zone's wall clock.
		{expr: "0 12 * * *", tz: "Asia/Tokyo", want: "2026-01-16T03:00:00Z"},
		{expr: "0 9 * * *", tz: "America/New_York", want: "2026-01-15T14:00:00Z"},
		{expr: "0 9 * * *", tz: "Asia/Kathmandu", want: "2026-01-16T03:15:00Z"},  // +05:45
		{expr: "@daily", tz: "Pacific/Kiritimati", want: "2026-01-16T10:00:00Z"}, // +14:00
		{expr: "@daily", tz: "Etc/GMT+12", want: "2026-01-15T12:00:00Z"},         // -12:00
	}
	for _, tc := range tests {
		from := tc.after
		if from == "" {
			from = after
		}
		s := mustParse(t, tc.expr, tc.tz)
		got, ok := s.Next(utc(t, from))
		if !ok {
			t.Errorf("%q in %s: Next(%s) found nothing, want %s", tc.expr, tc.tz, from, tc.want)
			continue
		}
		if want := utc(t, tc.want); !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("%q in %s: Next(%s) = %s, want %s", tc.expr, tc.tz, from, got, want)
		}
	}
}

func TestScheduleNeverFires(t *testing.T) {
	after := utc(t, "2026-01-15T10:07:30Z")
	for _, expr := range []string{
		"0 0 30 2 *",
		"0 0 31 2,4,6,9,11 *",
		"* * 30 2 *", // wildcard hour: the elapsed-time search must give up too
		"*/5 */2 31 11 *",
		"@every 43825h", // longer than the horizon
	} {
		s := mustParse(t, expr, "Europe/Berlin")
		start := time.Now()
		if got, ok := s.Next(after); ok {
			t.Errorf("%q: Next = %s, want none within %s", expr, got, domain.NeverFiresHorizon)
		}
		// A never-firing expression is searched once per request and per fire; it must
		// stay cheap. Generous bound: it takes microseconds, the slack is for CI noise.
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("%q: proving it never fires took %s", expr, d)
		}
	}

	// Rare but real: the next 29 February is up to eight years off around 2100, which
	// is not a leap year, so it is beyond the horizon from 2097 on but not from 2095.
	leap := mustParse(t, "0 0 29 2 *", "UTC")
	if got, ok := leap.Next(utc(t, "2097-03-01T00:00:00Z")); ok {
		t.Errorf("29 Feb after 2097-03-01: got %s, want none within the horizon", got)
	}
	if got, ok := leap.Next(utc(t, "2095-03-01T00:00:00Z")); !ok || !got.Equal(utc(t, "2096-02-29T00:00:00Z")) {
		t.Errorf("29 Feb after 2095-03-01: got %s %v, want 2096-02-29", got, ok)
	}
}

func TestParseScheduleRejects(t *testing.T) {
	tests := []struct {
		expr, tz, field string
	}{
		{"", "UTC", "cron_expr"},
		{"   ", "UTC", "cron_expr"},
		{"* * * *", "UTC", "cron_expr"},
		{"60 0 * * * *", "UTC", "cron_expr"},  // seconds run 0-59
		{"0 0 0 * * * *", "UTC", "cron_expr"}, // seven fields
		{"60 * * * *", "UTC", "cron_expr"},
		{"0 24 * * *", "UTC", "cron_expr"},
		{"0 0 0 * *", "UTC", "cron_expr"},
		{"0 0 * 13 *", "UTC", "cron_expr"},
		{"0 0 * * 8", "UTC", "cron_expr"},
		{"*/0 * * * *", "UTC", "cron_expr"},
		{"5-1 * * * *", "UTC", "cron_expr"},
		{"a b c d e", "UTC", "cron_expr"},
		{"@fortnightly", "UTC", "cron_expr"},
		{"@DAILY", "UTC", "cron_expr"},
		{"@every", "UTC", "cron_expr"},
		{"@every soon", "UTC", "cron_expr"},
		{"@every 0s", "UTC", "cron_expr"},
		{"@every 500ms", "UTC", "cron_expr"},
		{"@every -5m", "UTC", "cron_expr"},
		{"@every 1500ms", "UTC", "cron_expr"}, // robfig would quietly drop the half second
		{"TZ=UTC 0 * * * *", "UTC", "cron_expr"},
		{"CRON_TZ=Europe/Berlin 0 9 * * *", "UTC", "cron_expr"},
		{"TZ=Europe/Berlin", "UTC", "cron_expr"}, // no space: robfig itself would panic
		{"0 9 * * *", "", "timezone"},
		{"0 9 * * *", "Local", "timezone"},
		{"0 9 * * *", "Mars/Olympus_Mons", "timezone"},
		{"0 9 * * *", "europe/berlin ", "timezone"},
		{"0 9 * * *", "../../etc/passwd", "timezone"},
		{"0 9 * * *", "/usr/share/zoneinfo/UTC", "timezone"},
		{"0 9 * * *", "America", "timezone"}, // a directory, not a zone
		{"0 9 * * *", "+02:00", "timezone"},
	}
	for _, tc := range tests {
		s, err := domain.ParseSchedule(tc.expr, tc.tz)
		var ve *domain.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("ParseSchedule(%q, %q) = %v, %v; want a *ValidationError", tc.expr, tc.tz, s, err)
			continue
		}
		if ve.Field != tc.field {
			t.Errorf("ParseSchedule(%q, %q): error names %q (%v), want %q", tc.expr, tc.tz, ve.Field, err, tc.field)
		}
		if ve.Message == "" || !strings.HasPrefix(err.Error(), tc.field+": ") {
			t.Errorf("ParseSchedule(%q, %q): unhelpful error %q", tc.expr, tc.tz, err)
		}
	}
}

func TestParseScheduleAcceptsAtMinEvery(t *testing.T) {
	s := mustParse(t, "@every "+domain.MinEvery.String(), "UTC")
	after := utc(t, "2026-01-15T10:07:30Z")
	if got, ok := s.Next(after); !ok || !got.Equal(after.Add(domain.MinEvery)) {
		t.Errorf("@every %s: Next = %s %v", domain.MinEvery, got, ok)
	}
}

// randomExpr builds a cron expression from pieces that exercise lists, ranges, steps,
// names, both day rules and every descriptor.
func randomExpr(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	if r.Intn(8) == 0 {
		return pick("@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly",
			"@every 1s", "@every 45s", "@every 90m", "@every 25h")
	}
	return strings.Join([]string{
		pick("0", "30", "59", "*", "*/15", "*/7", "0,30", "5-10", "15,45", "1-59/20"),
		pick("*", "*/2", "*/5", "0", "1", "2", "3", "23", "1-3", "2,3", "0-23", "8-18/3", "?"),
		pick("*", "*", "1", "13", "29", "31", "1-7", "*/2", "15-20"),
		pick("*", "*", "*", "2", "3", "10,11", "*/2", "mar-apr", "nov"),
		pick("*", "*", "0", "1-5", "6", "sun", "MON,FRI", "?"),
	}, " ")
}

var propertyZones = []string{
	"UTC", "Europe/Berlin", "America/New_York", "America/Santiago", "Asia/Beirut",
	"Australia/Lord_Howe", "Pacific/Chatham", "Asia/Kathmandu", "America/Havana",
	"Pacific/Apia", "Europe/London", "America/St_Johns",
}

// TestSchedulePropertiesRandom: for random expressions, zones and instants, Next is
// strictly after its argument, monotonic, and skips nothing (asking again from just
// before the answer gives the same answer).
func TestSchedulePropertiesRandom(t *testing.T) {
	r := rand.New(rand.NewSource(20260329))
	lo := utc(t, "2000-01-01T00:00:00Z").Unix()
	hi := utc(t, "2040-01-01T00:00:00Z").Unix()
	iterations := 3000
	if testing.Short() {
		iterations = 300
	}
	for i := 0; i < iterations; i++ {
		expr, tz := randomExpr(r), propertyZones[r.Intn(len(propertyZones))]
		s := mustParse(t, expr, tz)
		t1 := time.Unix(lo+r.Int63n(hi-lo), r.Int63n(int64(time.Second))).UTC()
		if r.Intn(3) == 0 {
			t1 = t1.Truncate(time.Minute) // on a boundary, where strictness matters
		}
		t2 := t1.Add(time.Duration(r.Int63n(int64(72 * time.Hour))))

		n1, ok1 := s.Next(t1)
		n2, ok2 := s.Next(t2)
		if ok1 && !n1.After(t1) {
			t.Fatalf("%q in %s: Next(%s) = %s, not after", expr, tz, t1, n1)
		}
		if ok2 && !n2.After(t2) {
			t.Fatalf("%q in %s: Next(%s) = %s, not after", expr, tz, t2, n2)
		}
		if ok1 && ok2 && n2.Before(n1) {
			t.Fatalf("%q in %s: not monotonic: Next(%s) = %s but Next(%s) = %s", expr, tz, t1, n1, t2, n2)
		}
		// "@every" counts from its argument, so only calendar schedules have fixed
		// occurrences to skip.
		if ok1 && !strings.HasPrefix(expr, "@every") && n1.Add(-time.Nanosecond).After(t1) {
			if again, ok := s.Next(n1.Add(-time.Nanosecond)); !ok || !again.Equal(n1) {
				t.Fatalf("%q in %s: Next(%s) = %s, but Next(just before it) = %s", expr, tz, t1, n1, again)
			}
		}
	}
}
