package domain

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Definition is what an owner may change of an alarm in place: everything but its
// kind, delivery, owner, conversation and idempotency key.
type Definition struct {
	Label       string
	CronExpr    string
	Timezone    string
	WakeMessage string
	Payload     json.RawMessage
	MaxFailures int
	Series      Series
	Tags        map[string]string // the whole set; nil for none
}

// Patch is an update: nil fields are left as they are. Series options are given one by
// one, so a patch can change the breaker without restating the bounds.
type Patch struct {
	Label       *string
	CronExpr    *string
	Timezone    *string
	WakeMessage *string
	Payload     *json.RawMessage
	MaxFailures *int
	// Tags, when set, replace the alarm's tags whole; an empty map clears them.
	Tags *map[string]string

	Misfire             *Misfire
	CatchUpLimit        *int
	CatchUpWindow       *time.Duration
	MaxConsecutiveSkips *int
	StartAt             *time.Time // a zero time clears the bound
	EndAt               *time.Time
	MaxFires            *int
	JitterSeconds       *int
	// ExcludeCalendars replaces the series' calendars (an empty list clears them).
	ExcludeCalendars *[]string
}

// definition is a's current definition.
func (a Alarm) definition() Definition {
	return Definition{Label: a.Label, CronExpr: a.CronExpr, Timezone: a.Timezone, WakeMessage: a.WakeMessage,
		Payload: a.Payload, MaxFailures: a.MaxFailures, Series: a.Series, Tags: a.Tags}
}

// Update changes an alarm's definition in place, validating the result as a create
// would (the same fields in the refusals), and records which fields changed in an
// updated event. A patch that changes nothing changes nothing.
//
// A change that moves the schedule (expression, zone, start_at, end_at, jitter) of an
// active series moves it to its first occurrence after now under the new schedule, with
// a fresh failure count, and releases any lease: a wake in flight finishes under the old
// values and its outcome is stale. Any other change keeps the lease and the occurrence:
// the wake in flight is recorded as usual, and the next one carries the new values. A
// max_fires lowered to the fires already made ends the series as fired. A finished
// alarm cannot be updated; a once alarm has no schedule to change; a failure notice is
// the server's (refuseNotice).
func Update(a Alarm, p Patch, now time.Time) (Transition, bool, error) {
	if err := refuseNotice(a, "update"); err != nil {
		return Transition{}, false, err
	}
	if a.Status.Terminal() {
		return Transition{}, false, invalidState("alarm is %s; a finished alarm cannot be updated", a.Status)
	}
	if a.Kind == KindOnce {
		if field := p.scheduleField(); field != "" {
			return Transition{}, false, invalid(field, "is for cron alarms")
		}
	}
	d := a.definition()
	var changed []string
	moves := false
	change := func(field string, differs, movesSchedule bool) bool {
		if differs {
			changed = append(changed, field)
			moves = moves || movesSchedule
		}
		return differs
	}
	s := &d.Series
	if p.Label != nil && change("label", *p.Label != d.Label, false) {
		d.Label = *p.Label
	}
	if p.CronExpr != nil && change("cron_expr", strings.TrimSpace(*p.CronExpr) != d.CronExpr, true) {
		d.CronExpr = strings.TrimSpace(*p.CronExpr)
	}
	if p.Timezone != nil {
		tz := *p.Timezone
		if tz == "" {
			tz = "UTC"
		}
		if change("timezone", tz != d.Timezone, true) {
			d.Timezone = tz
		}
	}
	if p.WakeMessage != nil && change("wake_message", *p.WakeMessage != d.WakeMessage, false) {
		d.WakeMessage = *p.WakeMessage
	}
	if p.Payload != nil && change("payload", string(*p.Payload) != string(d.Payload), false) {
		d.Payload = *p.Payload
	}
	if p.MaxFailures != nil && change("max_failures", *p.MaxFailures != d.MaxFailures, false) {
		d.MaxFailures = *p.MaxFailures
	}
	if p.Tags != nil && change("tags", !TagsEqual(*p.Tags, d.Tags), false) {
		d.Tags = cloneTags(*p.Tags)
	}
	if p.Misfire != nil && change("misfire", *p.Misfire != s.Misfire, false) {
		s.Misfire = *p.Misfire
	}
	if p.CatchUpLimit != nil && change("catch_up_limit", *p.CatchUpLimit != s.CatchUpLimit, false) {
		s.CatchUpLimit = *p.CatchUpLimit
	}
	if p.CatchUpWindow != nil && change("catch_up_window", *p.CatchUpWindow != s.CatchUpWindow, false) {
		s.CatchUpWindow = *p.CatchUpWindow
	}
	if p.MaxConsecutiveSkips != nil && change("max_consecutive_skips", *p.MaxConsecutiveSkips != s.MaxConsecutiveSkips, false) {
		s.MaxConsecutiveSkips = *p.MaxConsecutiveSkips
	}
	if p.StartAt != nil && change("start_at", !p.StartAt.Equal(s.StartAt), true) {
		s.StartAt = utcOrZero(*p.StartAt)
	}
	if p.EndAt != nil && change("end_at", !p.EndAt.Equal(s.EndAt), true) {
		s.EndAt = utcOrZero(*p.EndAt)
	}
	if p.MaxFires != nil && change("max_fires", *p.MaxFires != s.MaxFires, false) {
		s.MaxFires = *p.MaxFires
	}
	if p.JitterSeconds != nil && change("jitter_seconds", *p.JitterSeconds != s.JitterSeconds, true) {
		s.JitterSeconds = *p.JitterSeconds
	}
	if p.ExcludeCalendars != nil && change("exclude_calendars", !slices.Equal(*p.ExcludeCalendars, s.ExcludeCalendars), true) {
		s.ExcludeCalendars = nil
		if len(*p.ExcludeCalendars) > 0 {
			s.ExcludeCalendars = append([]string(nil), *p.ExcludeCalendars...)
		}
	}
	if len(changed) == 0 {
		return Transition{}, false, nil
	}
	if err := d.validate(a.Kind); err != nil {
		return Transition{}, false, err
	}

	t := owned(TransitionUpdated, a, now)
	t.Define = &d
	after := a
	after.CronExpr, after.Timezone, after.Series = d.CronExpr, d.Timezone, d.Series
	switch {
	case a.Kind == KindCron && d.Series.MaxFires > 0 && a.FireCount >= d.Series.MaxFires:
		t.Status = StatusFired // lowered to what it already made: the series is done
		t.PausedReason, t.PausedUntil = "", time.Time{}
	case moves && a.Status == StatusActive:
		sched, err := ParseSchedule(d.CronExpr, d.Timezone)
		if err != nil {
			return Transition{}, false, err
		}
		o, ok := after.firstFrom(sched, now)
		if !ok {
			return Transition{}, false, invalid("end_at", "leaves the series no occurrence after now")
		}
		t.NextFireAt, t.ScheduledFor, t.FailureCount = after.dueAt(o), o, 0
	default:
		t.KeepLease = true // the wake in flight, if any, is recorded as usual
	}
	t.ownerEvent(EventUpdated, a, now)
	t.Events[len(t.Events)-1].Message = "changed: " + strings.Join(changed, ", ")
	return t, true, nil
}

// scheduleField names the first schedule field a patch sets.
func (p Patch) scheduleField() string {
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"cron_expr", p.CronExpr != nil}, {"timezone", p.Timezone != nil}, {"misfire", p.Misfire != nil},
		{"catch_up_limit", p.CatchUpLimit != nil}, {"catch_up_window", p.CatchUpWindow != nil},
		{"max_consecutive_skips", p.MaxConsecutiveSkips != nil}, {"start_at", p.StartAt != nil},
		{"end_at", p.EndAt != nil}, {"max_fires", p.MaxFires != nil}, {"jitter_seconds", p.JitterSeconds != nil},
		{"exclude_calendars", p.ExcludeCalendars != nil},
	} {
		if f.set {
			return f.name
		}
	}
	return ""
}

// validate checks a definition as a create checks a spec.
func (d Definition) validate(kind Kind) error {
	for _, f := range []struct {
		field, value string
		limit        int
	}{{"label", d.Label, MaxLabelLen}, {"wake_message", d.WakeMessage, MaxWakeMessageLen}} {
		if err := checkText(f.field, f.value, f.limit); err != nil {
			return err
		}
	}
	if len(d.Payload) > MaxPayloadBytes {
		return invalid("payload", "is %d bytes; the limit is %d", len(d.Payload), MaxPayloadBytes)
	}
	if !json.Valid(d.Payload) {
		return invalid("payload", "is not valid JSON")
	}
	if d.MaxFailures < MinMaxFailures || d.MaxFailures > MaxMaxFailures {
		return invalid("max_failures", "must be between %d and %d, got %d", MinMaxFailures, MaxMaxFailures, d.MaxFailures)
	}
	if err := ValidateTags(d.Tags); err != nil {
		return err
	}
	if kind != KindCron {
		return nil
	}
	if _, err := ParseSchedule(d.CronExpr, d.Timezone); err != nil {
		return err
	}
	return d.Series.validate()
}
