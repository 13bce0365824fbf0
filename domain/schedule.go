package domain

import (
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// NeverFiresHorizon: a cron expression with no occurrence within this span of its
// creation is refused as one that never fires (for example "0 0 30 2 *").
const NeverFiresHorizon = 5 * 365 * 24 * time.Hour

// MinEvery is the shortest "@every" interval accepted.
const MinEvery = time.Second

// zoneReach bounds how far apart an instant and its wall-clock reading can be in any
// IANA zone (offsets stay within about ±16h, local mean time included). Searches for
// the instant at which a wall-clock time is reached, or for the latest reading so
// far, never need to look further than this.
const zoneReach = 48 * time.Hour

// parser reads five fields, or six with a leading seconds field ("*/10 * * * * *"):
// a five-field expression fires at second 0, as it always has.
var parser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Schedule is a parsed cron expression bound to a timezone.
//
// Occurrences follow the Vixie cron rule across DST changes (see Next). robfig/cron
// parses the expression, but its own Next walks local time in a way that skips a
// specific-hour job on a spring-forward day and runs it twice on a fall-back day, so
// Schedule uses robfig's field matcher only on wall-clock time encoded as UTC, where
// no clock ever jumps, and maps wall-clock times to instants itself.
type Schedule struct {
	expr string
	loc  *time.Location

	// every is the "@every" interval; zero for calendar expressions.
	every time.Duration

	// fields are the calendar fields, with Location forced to UTC: its Next finds
	// the next matching wall-clock time, written as a UTC time.Time ("wall time").
	fields *cron.SpecSchedule

	// namedHours is true when the hour field names specific hours (not "*", "?" or a
	// step of them): such occurrences are wall-clock appointments, fired once each.
	namedHours bool
}

// ParseSchedule parses a 5-field expression (6 with a leading seconds field), an
// "@daily"-style descriptor or "@every <duration>" (whole seconds, at least 1s) in the
// IANA zone tz. Errors are
// *ValidationError naming "cron_expr" or "timezone". A Schedule is immutable and safe
// to share; parsed schedules are cached (see schedule_cache.go).
func ParseSchedule(expr, tz string) (*Schedule, error) {
	if s := cachedSchedule(expr, tz); s != nil {
		return s, nil
	}
	s, err := parseSchedule(expr, tz)
	if err == nil {
		cacheSchedule(expr, tz, s)
	}
	return s, err
}

func parseSchedule(expr, tz string) (*Schedule, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return nil, invalid("cron_expr", "is required for a cron alarm")
	}
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return nil, invalid("cron_expr", "must not carry a TZ= prefix; use the timezone field")
	}
	// "" and "Local" load without error but mean UTC and the server's own zone: neither
	// is what a client that named a zone asked for.
	if tz == "" || tz == "Local" {
		return nil, invalid("timezone", "%q is not an IANA timezone name", tz)
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, invalid("timezone", "%q is not an IANA timezone name", tz)
	}
	parsed, err := parser.Parse(expr)
	if err != nil {
		return nil, invalid("cron_expr", "%q: %v", expr, err)
	}
	s := &Schedule{expr: expr, loc: loc}
	switch p := parsed.(type) {
	case cron.ConstantDelaySchedule:
		// robfig rounds anything under a second up to one second and drops fractions,
		// so "@every 10ms" and "@every -5s" would silently become "@every 1s": read the
		// interval ourselves and refuse what would not be honoured as written.
		s.every, err = everyInterval(expr)
		if err != nil {
			return nil, err
		}
	case *cron.SpecSchedule:
		fields := *p
		fields.Location = time.UTC
		s.fields = &fields
		s.namedHours = namesHours(expr)
	default:
		return nil, invalid("cron_expr", "%q: unsupported schedule", expr)
	}
	return s, nil
}

// everyInterval reads the duration of an "@every" expression robfig already accepted.
func everyInterval(expr string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(strings.TrimPrefix(expr, "@every")))
	switch {
	case err != nil:
		return 0, invalid("cron_expr", "%q: %v", expr, err)
	case d < MinEvery:
		return 0, invalid("cron_expr", "@every interval must be at least %s", MinEvery)
	case d%time.Second != 0:
		return 0, invalid("cron_expr", "@every interval must be a whole number of seconds")
	}
	return d, nil
}

// namesHours reports whether a calendar expression names specific hours. Like Vixie
// cron, it goes by what was written: an hour field (or a list element of it) starting
// with "*" or "?" — "*", "*/2" — is a wildcard, while "0-23" names every hour. Of the
// descriptors only @hourly has a wildcard hour; @daily and the rest name midnight.
func namesHours(expr string) bool {
	if strings.HasPrefix(expr, "@") {
		return expr != "@hourly"
	}
	fields := strings.Fields(expr)
	hour := 1
	if len(fields) == 6 {
		hour = 2 // after the seconds field
	}
	if len(fields) <= hour {
		return true // unreachable: the parser demands five or six fields
	}
	for _, part := range strings.Split(fields[hour], ",") {
		if strings.HasPrefix(part, "*") || strings.HasPrefix(part, "?") {
			return false
		}
	}
	return true
}

// Next returns the first occurrence strictly after after, in UTC, and false when
// there is none within NeverFiresHorizon.
//
// DST follows Vixie cron. An expression naming specific hours ("30 2 * * *",
// "0 9 * * 1-5", "@daily") fires once for each matching wall-clock time: when that
// time does not exist (spring forward) it fires at the first instant after the gap,
// and when it happens twice (fall back) it fires at the first of the two. An
// expression with a wildcard or stepped hour ("0 * * * *", "*/15 * * * *", "@hourly")
// fires at every instant whose wall clock matches, so it fires in both copies of a
// repeated hour and not at all in a skipped one. "@every" ignores the zone entirely
// and counts real elapsed time from after (to the whole second).
func (s *Schedule) Next(after time.Time) (time.Time, bool) {
	after = after.Round(0) // drop any monotonic reading: instants here are wall-clock based
	var (
		next time.Time
		ok   bool
	)
	switch {
	case s.every > 0:
		if s.every > NeverFiresHorizon {
			return time.Time{}, false
		}
		next, ok = after.Truncate(time.Second).Add(s.every), true
	case s.namedHours:
		next, ok = s.nextAppointment(after)
	default:
		next, ok = s.nextElapsed(after)
	}
	if !ok || !next.After(after) || next.Sub(after) > NeverFiresHorizon {
		return time.Time{}, false
	}
	return next.UTC(), true
}

// nextAppointment is Next for expressions naming specific hours. Each matching wall
// time w fires at reach(w), the first instant the clock reads w or later. reach never
// decreases as w grows, and reach(w) > after exactly when w is later than every
// reading the clock has shown up to after (its high-water mark). So the answer is
// reach of the first matching wall time past the high-water mark: one search on the
// calendar fields, whatever DST did.
func (s *Schedule) nextAppointment(after time.Time) (time.Time, bool) {
	w, ok := s.nextWall(s.highWater(after))
	if !ok {
		return time.Time{}, false
	}
	return s.reach(w), true
}

// nextElapsed is Next for wildcard-hour expressions: the first instant after after
// whose wall clock matches. Within one zone period (a stretch with a fixed UTC
// offset) wall time and instants move together, so it searches period by period: a
// fall-back repeats matches in the next period, a spring-forward has none to find.
func (s *Schedule) nextElapsed(after time.Time) (time.Time, bool) {
	local := after.In(s.loc)
	from := s.wall(after)
	limit := after.Add(NeverFiresHorizon)
	for {
		_, offset := local.Zone()
		_, end := local.ZoneBounds()
		w, ok := s.nextWall(from)
		if !ok {
			return time.Time{}, false
		}
		at := w.Add(-time.Duration(offset) * time.Second)
		if end.IsZero() || at.Before(end) {
			return at, true
		}
		if end.After(limit) || !end.After(local) {
			return time.Time{}, false
		}
		// The next period's first instant may itself match: search from just before
		// its first wall-clock reading.
		local = end.In(s.loc)
		from = s.wall(local).Add(-time.Nanosecond)
	}
}

// nextWall returns the first wall time strictly after w that matches the calendar
// fields. robfig gives up after about five years and returns zero.
func (s *Schedule) nextWall(w time.Time) (time.Time, bool) {
	n := s.fields.Next(w)
	return n, !n.IsZero()
}

// wall returns the wall-clock reading of t in the schedule's zone, as a UTC time.
func (s *Schedule) wall(t time.Time) time.Time {
	_, offset := t.In(s.loc).Zone()
	return t.UTC().Add(time.Duration(offset) * time.Second)
}

// highWater returns the latest wall-clock reading at or before after. It is after's
// own reading except during the second copy of a repeated hour, where the clock read
// later just before it fell back.
func (s *Schedule) highWater(after time.Time) time.Time {
	high := s.wall(after)
	oldest := after.Add(-zoneReach)
	t := after.In(s.loc)
	for {
		start, _ := t.ZoneBounds()
		if start.IsZero() || !start.After(oldest) || start.After(t) {
			return high
		}
		t = start.Add(-time.Nanosecond) // the last instant of the previous period
		if w := s.wall(t); w.After(high) {
			high = w
		}
	}
}

// reach returns the first instant at which the clock reads wall time w or later: the
// instant of w itself when it exists (the first one when it exists twice), or the end
// of the gap that skipped it. Periods are visited in time order, so the first one
// whose clock reaches w holds the answer.
func (s *Schedule) reach(w time.Time) time.Time {
	t := w.Add(-zoneReach).In(s.loc) // its clock reads earlier than w
	for {
		_, offset := t.Zone()
		_, end := t.ZoneBounds()
		at := w.Add(-time.Duration(offset) * time.Second)
		if at.Before(t) {
			at = t // the clock jumped past w as this period began
		}
		if end.IsZero() || at.Before(end) || !end.After(t) {
			return at
		}
		t = end.In(s.loc)
	}
}
