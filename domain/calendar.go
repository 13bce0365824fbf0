package domain

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Calendar is an owner's named set of excluded days: a series that names it in
// exclude_calendars delivers no occurrence that falls on one of them, the day as seen
// in the calendar's own timezone. A calendar is read when an occurrence comes due and
// when a series computes its next one, never copied into the series, so a change to it
// applies to every series using it without rewriting them.
type Calendar struct {
	Owner string
	Name  string
	// Timezone is the IANA zone whose days the exclusions name.
	Timezone string
	// ExcludeDates are civil dates, "2006-01-02".
	ExcludeDates []string
	// ExcludeWeekdays are days of the week, 0 (Sunday) to 6 (Saturday).
	ExcludeWeekdays []int
	// ExcludeRanges are inclusive runs of civil dates.
	ExcludeRanges []DateRange

	CreatedAt time.Time
	UpdatedAt time.Time
}

// DateRange is an inclusive run of civil dates, "2006-01-02" each.
type DateRange struct {
	From string
	To   string
}

// MaxSeriesCalendars is the most calendars one series names (exclude_calendars).
const MaxSeriesCalendars = 8

// The default limits of an owner's calendars (serve's --max-calendars-per-owner and
// --max-calendar-entries). A calendar is read whole and tested at every occurrence of
// every series naming it, so its entries bound that work, as the count bounds what an
// owner keeps.
const (
	DefaultMaxCalendarsPerOwner = 100
	DefaultMaxCalendarEntries   = 1000
)

// CalendarLimits bound an owner's calendars; 0 is no limit.
type CalendarLimits struct {
	PerOwner int // calendars of one owner
	Entries  int // exclude_dates, exclude_weekdays and exclude_ranges of one calendar, in all, as given
}

// CheckEntries refuses a calendar holding more entries than l allows, naming the list
// whose entries pass the limit (counted dates, then weekdays, then ranges).
func (l CalendarLimits) CheckEntries(c Calendar) error {
	if l.Entries <= 0 {
		return nil
	}
	total := len(c.ExcludeDates) + len(c.ExcludeWeekdays) + len(c.ExcludeRanges)
	if total <= l.Entries {
		return nil
	}
	field := "exclude_ranges"
	switch {
	case len(c.ExcludeDates) > l.Entries:
		field = "exclude_dates"
	case len(c.ExcludeDates)+len(c.ExcludeWeekdays) > l.Entries:
		field = "exclude_weekdays"
	}
	return invalid(field, "a calendar holds at most %d entries (exclude_dates, exclude_weekdays and exclude_ranges together), got %d",
		l.Entries, total)
}

// CalendarsOverLimit is the refusal of a new calendar for an owner that has limit
// calendars already: a *LimitError of ErrQuotaExceeded naming "name". No wait makes a
// retry succeed, only the owner deleting one (Permanent: no Retry-After).
func CalendarsOverLimit(limit int) error {
	return &LimitError{Kind: ErrQuotaExceeded, Permanent: true, Field: "name", Message: fmt.Sprintf(
		"the owner has %d calendars, the most it may have: delete one before creating another (replacing one is allowed)", limit)}
}

const dateLayout = "2006-01-02"

// calendarName is the rule endpoint names follow: a calendar name goes in a URL path.
var calendarName = endpointName

// ValidateCalendar checks a calendar as a PUT gives it; every refusal is a
// *ValidationError naming the field as the API spells it ("exclude_dates[3]"). How
// many entries it may hold is the node's to say (CalendarLimits.CheckEntries).
func ValidateCalendar(c Calendar) error {
	if c.Owner == "" {
		return invalid("owner", "is required")
	}
	if err := validCalendarName("name", c.Name); err != nil {
		return err
	}
	if _, err := zone(c.Timezone); err != nil {
		return invalid("timezone", "%q is not an IANA timezone name", c.Timezone)
	}
	for i, d := range c.ExcludeDates {
		if !isDate(d) {
			return invalid(fmt.Sprintf("exclude_dates[%d]", i), "must be a date written YYYY-MM-DD, got %q", d)
		}
	}
	for i, w := range c.ExcludeWeekdays {
		if w < 0 || w > 6 {
			return invalid(fmt.Sprintf("exclude_weekdays[%d]", i), "must be a weekday from 0 (Sunday) to 6 (Saturday), got %d", w)
		}
	}
	for i, r := range c.ExcludeRanges {
		field := fmt.Sprintf("exclude_ranges[%d]", i)
		switch {
		case !isDate(r.From):
			return invalid(field+".from", "must be a date written YYYY-MM-DD, got %q", r.From)
		case !isDate(r.To):
			return invalid(field+".to", "must be a date written YYYY-MM-DD, got %q", r.To)
		case r.To < r.From:
			return invalid(field+".to", "must not be before from (%s)", r.From)
		}
	}
	return nil
}

// NormalizeCalendar is c as it is stored: its dates and weekdays sorted without
// repeats, so that every reader can search them.
func NormalizeCalendar(c Calendar) Calendar {
	c.ExcludeDates = sortedSet(c.ExcludeDates)
	c.ExcludeWeekdays = sortedSet(c.ExcludeWeekdays)
	c.ExcludeRanges = append([]DateRange{}, c.ExcludeRanges...)
	return c
}

func sortedSet[T int | string](in []T) []T {
	out := append([]T{}, in...)
	slices.Sort(out)
	return slices.Compact(out)
}

func validCalendarName(field, name string) error {
	if !calendarName.MatchString(name) {
		return invalid(field, "must be 1 to 64 characters of a-z, 0-9, _ and -, starting with a letter or digit, got %q", name)
	}
	return nil
}

func isDate(s string) bool {
	t, err := time.Parse(dateLayout, s)
	return err == nil && t.Format(dateLayout) == s
}

// zones caches the locations calendars name: time.LoadLocation reads the zone
// database every call, and exclusions are tested at every occurrence.
var zones sync.Map // string -> *time.Location

func zone(tz string) (*time.Location, error) {
	if l, ok := zones.Load(tz); ok {
		return l.(*time.Location), nil
	}
	if tz == "" || tz == "Local" {
		return nil, fmt.Errorf("zone %q", tz)
	}
	l, err := time.LoadLocation(tz)
	if err != nil {
		return nil, err
	}
	zones.Store(tz, l)
	return l, nil
}

// Excludes reports whether t falls on a day the calendar excludes, the day as its own
// timezone sees it. A calendar whose zone no longer loads excludes nothing.
func (c Calendar) Excludes(t time.Time) bool {
	x, ok := compile(c)
	return ok && x.excludes(t)
}

// exclusion is one calendar ready to test instants against. Its days are yyyymmdd
// numbers, searched, never scanned: a walk past excluded days tests every calendar of
// a series on every day it crosses (in the dispatcher too), so a day's test must not
// grow with a calendar's entries.
type exclusion struct {
	name     string
	loc      *time.Location
	dates    []int32 // sorted
	weekdays [7]bool
	// from holds the ranges' first days, sorted; reach[i] is the latest last day of the
	// ranges from[:i+1] start, so a day is in a range when the last range starting on or
	// before it reaches it.
	from  []int32
	reach []int32
}

func compile(c Calendar) (exclusion, bool) {
	loc, err := zone(c.Timezone)
	if err != nil {
		return exclusion{}, false
	}
	x := exclusion{name: c.Name, loc: loc, dates: make([]int32, 0, len(c.ExcludeDates))}
	for _, d := range c.ExcludeDates {
		if n, ok := dayNumber(d); ok {
			x.dates = append(x.dates, n)
		}
	}
	if !slices.IsSorted(x.dates) {
		slices.Sort(x.dates)
	}
	for _, w := range c.ExcludeWeekdays {
		if w >= 0 && w <= 6 {
			x.weekdays[w] = true
		}
	}
	ranges := make([][2]int32, 0, len(c.ExcludeRanges))
	for _, r := range c.ExcludeRanges {
		from, okFrom := dayNumber(r.From)
		to, okTo := dayNumber(r.To)
		if okFrom && okTo && from <= to {
			ranges = append(ranges, [2]int32{from, to})
		}
	}
	slices.SortFunc(ranges, func(a, b [2]int32) int { return cmp.Compare(a[0], b[0]) })
	x.from, x.reach = make([]int32, len(ranges)), make([]int32, len(ranges))
	var reach int32
	for i, r := range ranges {
		reach = max(reach, r[1])
		x.from[i], x.reach[i] = r[0], reach
	}
	return x, true
}

// dayNumber reads a "2006-01-02" date as 20060102, which orders as the dates do; ok is
// false for anything else (ValidateCalendar lets nothing else be stored).
func dayNumber(s string) (int32, bool) {
	if len(s) != len(dateLayout) || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	var n int32
	for i := 0; i < len(s); i++ {
		if i == 4 || i == 7 {
			continue
		}
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int32(c-'0')
	}
	return n, true
}

func (x exclusion) excludes(t time.Time) bool {
	local := t.In(x.loc)
	if x.weekdays[local.Weekday()] {
		return true
	}
	y, m, d := local.Date()
	day := int32(y*10000 + int(m)*100 + d)
	if _, found := slices.BinarySearch(x.dates, day); found {
		return true
	}
	i, found := slices.BinarySearch(x.from, day)
	if !found {
		i-- // the last range starting before day
	}
	return i >= 0 && x.reach[i] >= day
}

// nextDay is the first instant of the local day after t's. A midnight that a DST gap
// skips is read as Go does (one side of the gap); the walk below never relies on it
// being exact, only on moving forward.
func (x exclusion) nextDay(t time.Time) time.Time {
	l := t.In(x.loc)
	return time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, x.loc)
}

// exclusions are a series' calendars, compiled. A name the owner has no calendar for
// excludes nothing: the API refuses such a name, so only a calendar deleted in a race
// with a create can be missing.
type exclusions []exclusion

// seriesExclusions compiles the calendars of cals that the series names.
func seriesExclusions(s Series, cals []Calendar) exclusions {
	if len(s.ExcludeCalendars) == 0 || len(cals) == 0 {
		return nil
	}
	var xs exclusions
	for _, name := range s.ExcludeCalendars {
		for _, c := range cals {
			if c.Name == name {
				if x, ok := compile(c); ok {
					xs = append(xs, x)
				}
				break
			}
		}
	}
	return xs
}

// excluder is the first calendar that excludes t, or nil.
func (xs exclusions) excluder(t time.Time) *exclusion {
	for i := range xs {
		if xs[i].excludes(t) {
			return &xs[i]
		}
	}
	return nil
}

// excludeJumps bounds one walk over excluded days: enough for every day of
// NeverFiresHorizon in each of MaxSeriesCalendars zones.
const excludeJumps = 8 * 2 * 366 * 5

// excludedRun is a run of consecutive occurrences the calendars excluded.
type excludedRun struct {
	first     time.Time // the first excluded occurrence; zero when none was
	by        []string  // the calendars that excluded some, in order of first use
	exhausted bool      // no occurrence within NeverFiresHorizon escapes the calendars
}

// skipExcluded walks the series from occurrence o (o included) past every occurrence
// its calendars exclude, a day at a time, and returns the first that none excludes
// within the series' bounds (ok false when the bounds end first). A walk that finds
// no such occurrence within NeverFiresHorizon of o stops with run.exhausted set.
func (a Alarm) skipExcluded(sched *Schedule, o time.Time, xs exclusions) (next time.Time, ok bool, run excludedRun) {
	if len(xs) == 0 {
		return o, true, run
	}
	horizon := o.Add(NeverFiresHorizon)
	ok = true
	for jumps := 0; ok; jumps++ {
		x := xs.excluder(o)
		if x == nil {
			return o, true, run
		}
		if run.first.IsZero() {
			run.first = o
		}
		if !slices.Contains(run.by, x.name) {
			run.by = append(run.by, x.name)
		}
		if jumps == excludeJumps || o.After(horizon) {
			run.exhausted = true
			return time.Time{}, false, run
		}
		n, nok := a.bounded(firstAtOrAfter(sched, o, x.nextDay(o)))
		if nok && !n.After(o) { // a day boundary read on the wrong side of a gap
			n, nok = a.next(sched, o)
		}
		o, ok = n, nok
	}
	return time.Time{}, false, run
}

// excludedEvent records a run: one event however many occurrences it held, naming
// the first as its occurrence.
func (t *Transition) excludedEvent(a Alarm, run excludedRun, next time.Time, ok bool, now time.Time) {
	if run.first.IsZero() {
		return
	}
	until := "the series' end"
	switch {
	case run.exhausted:
		until = "beyond 5 years"
	case ok:
		until = next.UTC().Format(time.RFC3339)
	}
	t.Events = append(t.Events, Event{
		AlarmID: a.ID, Type: EventExcluded, At: now.UTC(), ScheduledFor: run.first,
		Message: fmt.Sprintf("occurrences from %s until %s excluded by calendar %s",
			run.first.UTC().Format(time.RFC3339), until, joinNames(run.by)),
	})
}

func joinNames(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// excludeNext moves t, pointed at occurrence next of a, past the occurrences a's
// calendars exclude, recording the run; a series that runs out ends as fired, and one
// whose calendars leave it no day within 5 years pauses itself with the reason (its
// owner resumes it once a calendar changed).
func (t *Transition) excludeNext(a Alarm, sched *Schedule, next time.Time, xs exclusions, now time.Time) {
	n, ok, run := a.skipExcluded(sched, next, xs)
	t.excludedEvent(a, run, n, ok, now)
	switch {
	case run.exhausted:
		t.Status = StatusPaused
		t.PausedReason = reason(fmt.Sprintf("paused: exclude_calendars (%s) exclude every occurrence for 5 years from %s",
			joinNames(a.Series.ExcludeCalendars), next.UTC().Format(time.RFC3339)))
		t.PausedUntil = time.Time{}
		t.Events = append(t.Events, Event{AlarmID: a.ID, Type: EventPaused, At: now.UTC(), ScheduledFor: next, Message: t.PausedReason})
	case !ok:
		t.Status = StatusFired
	default:
		t.NextFireAt, t.ScheduledFor = a.dueAt(n), n
	}
}

// isScheduled reports whether o is an occurrence of the expression itself, not a time
// a trigger chose: a trigger delivers whatever the calendars say. Every occurrence of
// an "@every" series counts as scheduled (its phase is its last occurrence).
func isScheduled(sched *Schedule, o time.Time) bool {
	if sched.every > 0 {
		return true
	}
	f, ok := firstAtOrAfter(sched, time.Time{}, o)
	return ok && f.Equal(o)
}

// excludedAtClaim drops a claimed first attempt that falls on an excluded day: no
// wake, the series moves to its first occurrence the calendars leave (Firing.Skip).
func excludedAtClaim(a Alarm, xs exclusions, now time.Time) (Transition, bool) {
	if len(xs) == 0 || a.Kind != KindCron || a.FailureCount > 0 || xs.excluder(a.ScheduledFor) == nil {
		return Transition{}, false
	}
	sched, err := ParseSchedule(a.CronExpr, a.Timezone)
	if err != nil || !isScheduled(sched, a.ScheduledFor) {
		return Transition{}, false
	}
	t := base(TransitionExcluded, a, now)
	t.FailureCount = 0
	t.excludeNext(a, sched, a.ScheduledFor, xs, now)
	return t, true
}

// WithCalendars checks a new series' exclude_calendars against the owner's calendars
// cals and moves its first occurrence past the days they exclude. Every name must be
// one of cals (else a refusal naming "exclude_calendars[i]"), and the calendars must
// leave the series an occurrence within 5 years ("exclude_calendars").
func WithCalendars(a Alarm, cals []Calendar, now time.Time) (Alarm, error) {
	if a.Kind != KindCron || len(a.Series.ExcludeCalendars) == 0 {
		return a, nil
	}
	if err := knownCalendars(a.Series.ExcludeCalendars, cals); err != nil {
		return Alarm{}, err
	}
	sched, err := ParseSchedule(a.CronExpr, a.Timezone)
	if err != nil {
		return Alarm{}, err
	}
	n, ok, run := a.skipExcluded(sched, a.ScheduledFor, seriesExclusions(a.Series, cals))
	if run.exhausted {
		return Alarm{}, invalid("exclude_calendars", "the calendars %s exclude every occurrence of %q for the next 5 years",
			joinNames(a.Series.ExcludeCalendars), a.CronExpr)
	}
	if !ok {
		return Alarm{}, invalid("exclude_calendars", "the calendars %s exclude every occurrence of %q before end_at",
			joinNames(a.Series.ExcludeCalendars), a.CronExpr)
	}
	a.ScheduledFor, a.NextFireAt = n, a.dueAt(n)
	return a, nil
}

// knownCalendars refuses a name that is not one of cals.
func knownCalendars(names []string, cals []Calendar) error {
	for i, name := range names {
		if !slices.ContainsFunc(cals, func(c Calendar) bool { return c.Name == name }) {
			return invalid(fmt.Sprintf("exclude_calendars[%d]", i), "no calendar named %q: create it first (PUT /v1/calendars/%s)", name, name)
		}
	}
	return nil
}

// validateCalendarNames checks a series' exclude_calendars as a create or update
// gives them: at most MaxSeriesCalendars names, each a calendar name, none twice.
func validateCalendarNames(names []string) error {
	if len(names) > MaxSeriesCalendars {
		return invalid("exclude_calendars", "at most %d calendars, got %d", MaxSeriesCalendars, len(names))
	}
	for i, n := range names {
		field := fmt.Sprintf("exclude_calendars[%d]", i)
		if err := validCalendarName(field, n); err != nil {
			return err
		}
		if slices.Index(names, n) < i {
			return invalid(field, "%q is named twice", n)
		}
	}
	return nil
}

// UpdateExcluding is Update for a series whose owner's calendars are cals: a patch
// naming calendars must name calendars of cals, the series' calendars must leave it an
// occurrence within 5 years (else a refusal naming "exclude_calendars"), and a patch
// that moves an active series' occurrence moves it past the days they exclude.
func UpdateExcluding(a Alarm, p Patch, cals []Calendar, now time.Time) (Transition, bool, error) {
	t, changed, err := Update(a, p, now)
	if err != nil || !changed || a.Kind != KindCron || t.Define == nil || len(t.Define.Series.ExcludeCalendars) == 0 {
		return t, changed, err
	}
	after := t.ApplyTo(a)
	if p.ExcludeCalendars != nil {
		if err := knownCalendars(after.Series.ExcludeCalendars, cals); err != nil {
			return Transition{}, false, err
		}
	}
	sched, err := ParseSchedule(after.CronExpr, after.Timezone)
	if err != nil {
		return Transition{}, false, err
	}
	xs := seriesExclusions(after.Series, cals)
	if first, ok := after.firstFrom(sched, now); ok {
		if _, _, run := after.skipExcluded(sched, first, xs); run.exhausted {
			return Transition{}, false, invalid("exclude_calendars", "the calendars %s exclude every occurrence of %q for the next 5 years",
				joinNames(after.Series.ExcludeCalendars), after.CronExpr)
		}
	}
	if t.Status == StatusActive && !t.KeepLease { // the patch moved the occurrence
		n, ok, _ := after.skipExcluded(sched, t.ScheduledFor, xs)
		if !ok {
			return Transition{}, false, invalid("exclude_calendars", "the calendars %s exclude every occurrence of %q before end_at",
				joinNames(after.Series.ExcludeCalendars), after.CronExpr)
		}
		t.ScheduledFor, t.NextFireAt = n, after.dueAt(n)
	}
	return t, true, nil
}

// ValidateCalendarNames checks exclude_calendars as a request gives them (a preview's).
func ValidateCalendarNames(names []string) error { return validateCalendarNames(names) }

// CalendarsNamed is the calendars of cals that names names, in names' order; a name
// none has is a refusal naming "exclude_calendars[i]".
func CalendarsNamed(names []string, cals []Calendar) ([]Calendar, error) {
	if err := knownCalendars(names, cals); err != nil {
		return nil, err
	}
	out := make([]Calendar, 0, len(names))
	for _, n := range names {
		i := slices.IndexFunc(cals, func(c Calendar) bool { return c.Name == n })
		out = append(out, cals[i])
	}
	return out, nil
}

// NeedsCalendars reports whether UpdateExcluding reads the calendars for p: it names
// calendars, or moves the schedule (an active series' occurrence is then recomputed
// past the days they exclude). Any other patch leaves the occurrence where it is.
func (p Patch) NeedsCalendars() bool {
	return p.ExcludeCalendars != nil || p.CronExpr != nil || p.Timezone != nil || p.StartAt != nil || p.EndAt != nil ||
		p.JitterSeconds != nil
}
