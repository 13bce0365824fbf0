package domain

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// Backfill builds the alarm that delivers a series' occurrences in the past window
// [from, to], oldest first, each with the series' own occurrence key, without moving
// the series itself. It is an alarm of its own (id, history, cancel), a cron alarm
// bounded to the window whose occurrences are all missed and which catches up on them
// (misfire catch_up, the series' catch_up_limit: the newest that many, the older ones
// recorded as missed); after the window's last it ends as fired. Its idempotency key
// names the series and the window, so a repeated request makes one backfill.
//
// It returns the alarm and how many occurrences the window holds (up to the limit + 1,
// to tell whether some will be dropped). A window must be in the past, hold at least
// one occurrence, and the series must be a cron alarm.
func Backfill(series Alarm, id string, from, to, now time.Time) (Alarm, int, error) {
	return BackfillExcluding(series, nil, id, from, to, now)
}

// BackfillExcluding is Backfill for a series whose owner's calendars are cals: the
// backfill names the series' calendars too, so the occurrences on the days they
// exclude (when each comes due) are not delivered, and count leaves out those they
// exclude now.
func BackfillExcluding(series Alarm, cals []Calendar, id string, from, to, now time.Time) (Alarm, int, error) {
	if series.Kind != KindCron {
		return Alarm{}, 0, invalidState("only a cron series has occurrences to backfill")
	}
	if series.Series.BackfillOf != "" {
		return Alarm{}, 0, invalidState("alarm %s is itself a backfill; backfill its series %s", series.ID, series.Series.BackfillOf)
	}
	from, to = from.UTC(), to.UTC()
	switch {
	case from.IsZero():
		return Alarm{}, 0, invalid("from", "is required")
	case to.IsZero():
		return Alarm{}, 0, invalid("to", "is required")
	case !to.After(from):
		return Alarm{}, 0, invalid("to", "must be after from")
	case to.After(now):
		return Alarm{}, 0, invalid("to", "must not be in the future (now is %s): a backfill delivers past occurrences", now.UTC().Format(time.RFC3339))
	case now.Sub(from) > MaxDelay:
		return Alarm{}, 0, invalid("from", "is more than ten years ago")
	}
	sched, err := ParseSchedule(series.CronExpr, series.Timezone)
	if err != nil {
		return Alarm{}, 0, invalidState("the series' schedule no longer parses: %v", err)
	}
	b := Alarm{
		ID: id, Owner: series.Owner, Kind: KindCron,
		Label:    backfillLabel(series.Label),
		CronExpr: series.CronExpr, Timezone: series.Timezone,
		ConversationID: series.ConversationID, WakeMessage: series.WakeMessage, Payload: series.Payload,
		Endpoint: series.Endpoint, Status: StatusActive, Delivery: series.Delivery, MaxFailures: series.MaxFailures,
		IdempotencyKey: fmt.Sprintf("backfill %s %s %s", series.ID, from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano)),
		Series: Series{Misfire: MisfireCatchUp, CatchUpLimit: series.Series.CatchUpLimit, StartAt: from, EndAt: to,
			BackfillOf: series.ID, ExcludeCalendars: append([]string(nil), series.Series.ExcludeCalendars...)},
		CreatedAt: now.UTC(), UpdatedAt: now.UTC(),
	}
	// An "@every" series keeps its phase: its occurrences are its current one plus or
	// minus whole intervals.
	xs := seriesExclusions(series.Series, cals)
	first, ok := firstAtOrAfter(sched, series.ScheduledFor, from)
	if ok {
		first, ok, _ = b.skipExcluded(sched, first, xs)
	}
	if !ok || first.After(to) {
		return Alarm{}, 0, invalid("from", "the window %s to %s holds no occurrence of %q", from.Format(time.RFC3339), to.Format(time.RFC3339), series.CronExpr)
	}
	n := 1
	for o := first; n <= b.Series.catchUpLimit(); n++ {
		if o, ok = b.next(sched, o); ok {
			o, ok, _ = b.skipExcluded(sched, o, xs)
		}
		if !ok {
			break
		}
	}
	b.ScheduledFor, b.NextFireAt = first, now.UTC()
	return b, n, nil
}

// backfillLabel names a backfill after its series, within MaxLabelLen.
func backfillLabel(label string) string {
	l := "backfill: " + label
	if utf8.RuneCountInString(l) > MaxLabelLen {
		l = string([]rune(l)[:MaxLabelLen])
	}
	return l
}
