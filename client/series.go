package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The routes below are a cron series' own: pausing with an end, skipping, and looking
// ahead. docs/schedules.md describes what the server does with each.

// PauseAlarm is how PauseAlarmWith pauses. The zero value is a plain pause, as
// (*Client).PauseAlarm makes.
type PauseAlarm struct {
	// Until is when the series resumes by itself, at its first occurrence after that;
	// zero pauses it until it is resumed. It must be in the future.
	Until time.Time
	// Note says why, for people: the alarm's PausedReason (at most 500 characters).
	Note string
}

// pauseWire is the body of POST /v1/alarms/{id}/pause.
type pauseWire struct {
	Until *string `json:"until,omitempty"`
	Note  string  `json:"note,omitempty"`
}

// PauseAlarmWith pauses a cron alarm with an end and a note (POST
// /v1/alarms/{id}/pause). Pausing a paused alarm with another end or note changes
// them; with the same ones, it is answered unchanged.
func (c *Client) PauseAlarmWith(ctx context.Context, id string, p PauseAlarm) (Alarm, error) {
	if p == (PauseAlarm{}) {
		// The body is optional; leaving it out keeps this call the same request as
		// PauseAlarm's.
		return c.PauseAlarm(ctx, id)
	}
	body, err := marshal(pauseWire{Until: optionalTime(p.Until), Note: p.Note})
	if err != nil {
		return Alarm{}, err
	}
	return c.alarmActionWith(ctx, http.MethodPost, id, "pause", body)
}

// SkipNext drops an active cron series' next occurrence (POST /v1/alarms/{id}/skip),
// recorded as a skipped event; skipping the last one before EndAt ends the series as
// fired. Skipping on a once alarm, or a series that is not active, is invalid_state.
func (c *Client) SkipNext(ctx context.Context, id string) (Alarm, error) {
	return c.alarmAction(ctx, http.MethodPost, id, "skip")
}

// UpcomingOccurrences lists an alarm's next occurrences as they stand, soonest first
// (GET /v1/alarms/{id}/upcoming), honouring its pause, bounds, remaining fires and
// jitter; none for a finished alarm or one paused without an end. count is 1..100; 0
// means the server's default, 10.
func (c *Client) UpcomingOccurrences(ctx context.Context, id string, count int) ([]Occurrence, error) {
	path, err := alarmPath("/v1/alarms", id, "upcoming")
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	if count != 0 {
		q.Set("count", strconv.Itoa(count))
	}
	var out struct {
		Occurrences []Occurrence `json:"occurrences"`
	}
	if err := c.do(ctx, call{method: http.MethodGet, path: path, query: q}, &out); err != nil {
		return nil, err
	}
	return out.Occurrences, nil
}

// PreviewSchedule is a schedule to look ahead on. Zero values are left out.
type PreviewSchedule struct {
	CronExpr string
	Timezone string    // the IANA zone CronExpr is read in; "" is UTC
	From     time.Time // list occurrences after this instant; zero is the server's now
	Count    int       // 1..100; 0 means the server's default, 10
	// ExcludeCalendars leaves out the days these calendars of the owner exclude.
	ExcludeCalendars []string
}

// previewWire is the body of POST /v1/schedules/preview.
type previewWire struct {
	CronExpr string  `json:"cron_expr"`
	Timezone string  `json:"timezone,omitempty"`
	From     *string `json:"from,omitempty"`
	Count    int     `json:"count,omitempty"`
	// ExcludeCalendars names the owner's calendars to leave out.
	ExcludeCalendars []string `json:"exclude_calendars,omitempty"`
}

// PreviewSchedule lists a schedule's next occurrences, soonest first (POST
// /v1/schedules/preview), validating it as a create would: a bad expression or zone is
// the same invalid_argument, its Field "cron_expr" or "timezone". Nothing is created.
func (c *Client) PreviewSchedule(ctx context.Context, req PreviewSchedule) ([]time.Time, error) {
	body, err := marshal(previewWire{CronExpr: req.CronExpr, Timezone: req.Timezone,
		From: optionalTime(req.From), Count: req.Count, ExcludeCalendars: req.ExcludeCalendars})
	if err != nil {
		return nil, err
	}
	var out struct {
		Occurrences []struct {
			ScheduledFor time.Time `json:"scheduled_for"`
		} `json:"occurrences"`
	}
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/schedules/preview", body: body}, &out); err != nil {
		return nil, err
	}
	times := make([]time.Time, len(out.Occurrences))
	for i, o := range out.Occurrences {
		times[i] = o.ScheduledFor
	}
	return times, nil
}

// BackfillResult is the answer to Backfill.
type BackfillResult struct {
	// Alarm is the backfill: an alarm of its own (listed, cancellable, with its
	// history) whose BackfillOf names the series.
	Alarm Alarm `json:"alarm"`
	// Deduped is true when an earlier request for the same window made it.
	Deduped bool `json:"deduped"`
	// Occurrences is how many occurrences it delivers; Truncated says the window held
	// more than the series' catch_up_limit, and the older ones are dropped.
	Occurrences int  `json:"occurrences"`
	Truncated   bool `json:"truncated"`
}

// backfillWire is the body of POST /v1/alarms/{id}/backfill.
type backfillWire struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Backfill delivers a cron series' occurrences in [from, to], oldest first, without
// moving the series (POST /v1/alarms/{id}/backfill). to must not be in the future. A
// repeated request for the same window answers the same backfill (Deduped), so it is
// safe to retry. docs/schedules.md describes it.
func (c *Client) Backfill(ctx context.Context, id string, from, to time.Time) (BackfillResult, error) {
	path, err := alarmPath("/v1/alarms", id, "backfill")
	if err != nil {
		return BackfillResult{}, err
	}
	body, err := marshal(backfillWire{From: from.UTC().Format(time.RFC3339Nano), To: to.UTC().Format(time.RFC3339Nano)})
	if err != nil {
		return BackfillResult{}, err
	}
	var out BackfillResult
	if err := c.do(ctx, call{method: http.MethodPost, path: path, body: body, repeatable: true}, &out); err != nil {
		return BackfillResult{}, err
	}
	return out, nil
}
