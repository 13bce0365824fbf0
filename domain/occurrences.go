package domain

import (
	"fmt"
	"time"
)

// walkBudget bounds how many occurrences one decision steps through to count and drop
// missed ones. An "@every" series is counted by arithmetic whatever its gap; a calendar
// series has at most one occurrence a minute, so the budget covers one missed for
// about ten weeks. Past it the count is a lower bound and the walk jumps to the
// occurrences near now.
const walkBudget = 100_000

// Gap is a run of consecutive occurrences a series dropped without delivering them.
type Gap struct {
	First, Last time.Time
	Count       int
	// AtLeast: the walk stopped counting at walkBudget; Count is a lower bound.
	AtLeast bool
}

func (g *Gap) add(o time.Time) {
	if g.Count == 0 {
		g.First = o
	}
	g.Last = o
	g.Count++
}

// firstAtOrAfter is the series' first occurrence at or after t, ignoring bounds. An
// "@every" series counted from anchor keeps its phase: anchor + k·interval.
func firstAtOrAfter(sched *Schedule, anchor, t time.Time) (time.Time, bool) {
	if sched.every > 0 && !anchor.IsZero() {
		d := t.Sub(anchor)
		k := d / sched.every // toward zero: round up below
		if k*sched.every < d {
			k++
		}
		return anchor.Add(k * sched.every), true
	}
	return sched.Next(t.Add(-time.Nanosecond))
}

// next is the series' first occurrence strictly after o within its bounds (start_at,
// end_at), and false when it has none.
func (a Alarm) next(sched *Schedule, o time.Time) (time.Time, bool) {
	n, ok := sched.Next(o)
	if ok && !a.Series.StartAt.IsZero() && n.Before(a.Series.StartAt) {
		n, ok = firstAtOrAfter(sched, time.Time{}, a.Series.StartAt)
	}
	return a.bounded(n, ok)
}

// firstFrom is the series' first occurrence strictly after t within its bounds, as a
// new or resumed series starts: never before start_at, never after end_at.
func (a Alarm) firstFrom(sched *Schedule, t time.Time) (time.Time, bool) {
	if !a.Series.StartAt.IsZero() && a.Series.StartAt.After(t) {
		if sched.every > 0 {
			return a.bounded(a.Series.StartAt, true) // "@every" starts at start_at itself
		}
		return a.bounded(firstAtOrAfter(sched, time.Time{}, a.Series.StartAt))
	}
	return a.bounded(sched.Next(t))
}

func (a Alarm) bounded(o time.Time, ok bool) (time.Time, bool) {
	if !ok || !a.Series.EndAt.IsZero() && o.After(a.Series.EndAt) {
		return time.Time{}, false
	}
	return o, true
}

// plan is where a series goes next: the occurrence to deliver (ok false when the series
// has none left) and the missed occurrences dropped on the way.
type plan struct {
	next    time.Time
	ok      bool
	dropped Gap
}

// planFrom walks the series from occurrence o (o itself included) and applies its
// misfire policy. An occurrence is missed when it falls due (with its jitter) more than
// the threshold before now. fire_once and skip drop every missed occurrence and stop at
// the first one that is not; catch_up keeps the newest catch_up_limit missed ones
// inside catch_up_window and stops at the oldest it keeps.
func (a Alarm) planFrom(sched *Schedule, o time.Time, now time.Time, p Policy) plan {
	if _, ok := a.bounded(o, true); !ok {
		return plan{} // past end_at (an end moved before the current occurrence): none left
	}
	cutoff := now.Add(-p.threshold())
	missed := func(o time.Time) bool { return a.dueAt(o).Before(cutoff) }
	if !missed(o) {
		return plan{next: o, ok: true}
	}
	catchUp := a.Series.misfire() == MisfireCatchUp
	var (
		pl     plan
		kept   []time.Time // catch_up: the newest missed occurrences, oldest first
		limit  = a.Series.catchUpLimit()
		window time.Time // catch_up: occurrences before it are dropped
		ok     = true
	)
	if catchUp && a.Series.CatchUpWindow > 0 {
		window = now.Add(-a.Series.CatchUpWindow)
	}
	drop := func(o time.Time) {
		if catchUp && !o.Before(window) {
			if len(kept) == limit {
				pl.dropped.add(kept[0])
				kept = kept[1:]
			}
			kept = append(kept, o)
			return
		}
		pl.dropped.add(o)
	}
	// On an "@every" series the occurrences certainly dropped are counted by arithmetic,
	// whatever the gap: those due before sure are missed whatever their jitter, and of
	// those catch_up keeps only the newest limit, inside its window.
	sure := cutoff.Add(-time.Duration(a.Series.JitterSeconds) * time.Second)
	dropBefore := sure
	if catchUp {
		horizon := sure // the missed occurrences end before it
		if end := a.Series.EndAt; !end.IsZero() && end.Before(horizon) {
			horizon = end.Add(time.Nanosecond)
		}
		dropBefore = horizon.Add(-time.Duration(limit) * sched.every)
		if window.After(dropBefore) {
			dropBefore = window
		}
		if dropBefore.After(sure) {
			dropBefore = sure
		}
	}
	for steps := 0; ok && missed(o); steps++ {
		if sched.every > 0 && o.Before(dropBefore) {
			n := int((dropBefore.Sub(o)-1)/sched.every) + 1 // o, o+e, ... before dropBefore
			if !a.Series.EndAt.IsZero() && a.Series.EndAt.Before(o.Add(time.Duration(n-1)*sched.every)) {
				n = int(a.Series.EndAt.Sub(o)/sched.every) + 1
			}
			last := o.Add(time.Duration(n-1) * sched.every)
			pl.dropped.add(o)
			pl.dropped.Count += n - 1
			pl.dropped.Last = last
			o, ok = a.next(sched, last)
			continue
		}
		if steps == walkBudget {
			pl.dropped.AtLeast = true
			o, ok = a.bounded(firstAtOrAfter(sched, o, sure))
			if ok && !missed(o) {
				break
			}
		}
		drop(o)
		o, ok = a.next(sched, o)
	}
	if len(kept) > 0 {
		pl.next, pl.ok = kept[0], true
		return pl
	}
	pl.next, pl.ok = o, ok
	return pl
}

// threshold is the misfire threshold in force.
func (p Policy) threshold() time.Duration {
	if p.MisfireThreshold <= 0 {
		return DefaultMisfireThreshold
	}
	return p.MisfireThreshold
}

// missedEvent records a gap: one event however many occurrences it holds, naming the
// first as its occurrence.
func (t *Transition) missedEvent(a Alarm, g Gap, now time.Time, why string) {
	if g.Count == 0 {
		return
	}
	count := fmt.Sprint(g.Count)
	if g.AtLeast {
		count = "at least " + count
	}
	noun := "occurrences"
	if g.Count == 1 && !g.AtLeast {
		noun = "occurrence"
	}
	t.Events = append(t.Events, Event{
		AlarmID:      a.ID,
		Type:         EventMissed,
		At:           now.UTC(),
		ScheduledFor: g.First,
		Message: fmt.Sprintf("%s %s dropped, %s to %s (%s)", count, noun,
			g.First.UTC().Format(time.RFC3339), g.Last.UTC().Format(time.RFC3339), why),
	})
}
