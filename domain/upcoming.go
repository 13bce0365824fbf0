package domain

import "time"

// MaxUpcoming bounds how many occurrences one preview lists.
const MaxUpcoming = 100

// Occurrence is one future wake: the occurrence it delivers (its scheduled_for and
// occurrence key) and when it falls due (with its jitter, or its retry's backoff).
type Occurrence struct {
	ScheduledFor time.Time
	DueAt        time.Time
}

// Upcoming lists the alarm's next n occurrences (at most MaxUpcoming) as they stand at
// now: an active alarm's current occurrence first (due when its retry or jitter says),
// then the series' next ones within its bounds and remaining fires; a series paused
// with an end from where it will resume; nothing for a series paused without an end,
// a finished alarm, or a schedule that no longer parses. It assumes nothing is missed:
// what a misfire policy will drop depends on when a node gets to it.
func Upcoming(a Alarm, now time.Time, n int) []Occurrence {
	return UpcomingExcluding(a, nil, now, n)
}

// UpcomingExcluding is Upcoming for a series whose owner's calendars are cals: the
// occurrences on days the series' calendars exclude are left out, as they stand now.
func UpcomingExcluding(a Alarm, cals []Calendar, now time.Time, n int) []Occurrence {
	n = min(n, MaxUpcoming)
	if n <= 0 {
		return nil
	}
	if a.Kind == KindOnce {
		if a.Status != StatusActive {
			return nil
		}
		return []Occurrence{{ScheduledFor: a.ScheduledFor, DueAt: a.NextFireAt}}
	}
	sched, err := ParseSchedule(a.CronExpr, a.Timezone)
	if err != nil {
		return nil
	}
	left := n
	if remaining, bounded := a.RemainingFires(); bounded {
		left = min(n, remaining)
	}
	xs := seriesExclusions(a.Series, cals)
	var out []Occurrence
	var o time.Time
	switch {
	case a.Status == StatusActive && (a.FailureCount > 0 || xs.excluder(a.ScheduledFor) == nil || !isScheduled(sched, a.ScheduledFor)):
		o = a.ScheduledFor
		out = append(out, Occurrence{ScheduledFor: o, DueAt: a.NextFireAt})
	case a.Status == StatusActive: // its current occurrence will be excluded when it comes due
		first, ok, _ := a.skipExcluded(sched, a.ScheduledFor, xs)
		if !ok {
			return nil
		}
		o = first
		out = append(out, Occurrence{ScheduledFor: o, DueAt: a.dueAt(o)})
	case a.Status == StatusPaused && !a.PausedUntil.IsZero():
		first, ok := a.firstFrom(sched, maxTime(now, a.PausedUntil))
		if ok {
			first, ok, _ = a.skipExcluded(sched, first, xs)
		}
		if !ok {
			return nil
		}
		o = first
		out = append(out, Occurrence{ScheduledFor: o, DueAt: a.dueAt(o)})
	default:
		return nil
	}
	for len(out) < left {
		next, ok := a.next(sched, o)
		if ok {
			next, ok, _ = a.skipExcluded(sched, next, xs)
		}
		if !ok {
			break
		}
		o = next
		out = append(out, Occurrence{ScheduledFor: o, DueAt: a.dueAt(o)})
	}
	if len(out) > left {
		out = out[:left]
	}
	return out
}

// Preview lists the next n occurrences (at most MaxUpcoming) of a schedule after from,
// validating expression and zone as a create would (the same *ValidationError fields).
func Preview(expr, tz string, from time.Time, n int) ([]time.Time, error) {
	return PreviewExcluding(expr, tz, nil, from, n)
}

// PreviewExcluding is Preview leaving out the days every calendar of cals excludes
// (the calendars a create's exclude_calendars would name, resolved by the caller). A
// schedule they leave no occurrence within 5 years is refused naming
// "exclude_calendars".
func PreviewExcluding(expr, tz string, cals []Calendar, from time.Time, n int) ([]time.Time, error) {
	if tz == "" {
		tz = "UTC"
	}
	if n < 1 || n > MaxUpcoming {
		return nil, invalid("count", "must be between 1 and %d, got %d", MaxUpcoming, n)
	}
	sched, err := ParseSchedule(expr, tz)
	if err != nil {
		return nil, err
	}
	var xs exclusions
	for _, c := range cals {
		if x, ok := compile(c); ok {
			xs = append(xs, x)
		}
	}
	var series Alarm // unbounded: only the walk past excluded days is its
	out := make([]time.Time, 0, n)
	for t := from; len(out) < n; {
		next, ok := sched.Next(t)
		if !ok {
			break
		}
		next, ok, run := series.skipExcluded(sched, next, xs)
		if run.exhausted && len(out) == 0 {
			return nil, invalid("exclude_calendars", "the calendars exclude every occurrence of %q for the next 5 years", expr)
		}
		if !ok {
			break
		}
		out = append(out, next)
		t = next
	}
	if len(out) == 0 {
		return nil, invalid("cron_expr", "%q never fires in the next 5 years", expr)
	}
	return out, nil
}
