package client

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// UpdateAlarm changes an alarm's definition in place. Every field is optional: nil
// leaves it as it is, so that "absent" and a zero value differ (new("") clears a label,
// new(0) turns the breaker off). An alarm's kind, delivery, conversation and
// idempotency key are for life: cancel it and create another to change them.
//
// A once alarm takes only Label, WakeMessage, Payload and MaxFailures; the rest are a
// cron series' (see CreateAlarm for their meaning and ranges).
type UpdateAlarm struct {
	Label       *string
	CronExpr    *string
	Timezone    *string
	WakeMessage *string
	// Payload is any JSON value, sent and stored byte for byte; nil leaves it, and the
	// JSON null removes it.
	Payload     json.RawMessage
	MaxFailures *int

	// Misfire may be new(domain.Misfire("")), back to the server's default.
	Misfire      *domain.Misfire
	CatchUpLimit *int
	// CatchUpWindow is a Go duration such as "36h"; new("") removes the window.
	CatchUpWindow       *string
	MaxConsecutiveSkips *int
	// StartAt and EndAt set a bound; a pointer to the zero time clears it (the API's
	// null): EndAt: new(time.Time{}).
	StartAt       *time.Time
	EndAt         *time.Time
	MaxFires      *int
	JitterSeconds *int
	// ExcludeCalendars replaces the series' calendars; a pointer to an empty slice
	// clears them.
	ExcludeCalendars *[]string
	// Tags replace the alarm's tags whole; a pointer to an empty map clears them.
	Tags *map[string]string
}

// updateWire is the JSON body of PATCH /v1/alarms/{id}, less the payload (see body).
// start_at and end_at are json.RawMessage because null means something: clear it.
type updateWire struct {
	Label               *string            `json:"label,omitempty"`
	CronExpr            *string            `json:"cron_expr,omitempty"`
	Timezone            *string            `json:"timezone,omitempty"`
	WakeMessage         *string            `json:"wake_message,omitempty"`
	MaxFailures         *int               `json:"max_failures,omitempty"`
	Misfire             *domain.Misfire    `json:"misfire,omitempty"`
	CatchUpLimit        *int               `json:"catch_up_limit,omitempty"`
	CatchUpWindow       *string            `json:"catch_up_window,omitempty"`
	MaxConsecutiveSkips *int               `json:"max_consecutive_skips,omitempty"`
	StartAt             json.RawMessage    `json:"start_at,omitempty"`
	EndAt               json.RawMessage    `json:"end_at,omitempty"`
	MaxFires            *int               `json:"max_fires,omitempty"`
	JitterSeconds       *int               `json:"jitter_seconds,omitempty"`
	Tags                *map[string]string `json:"tags,omitempty"`
	ExcludeCalendars    *[]string          `json:"exclude_calendars,omitempty"`
}

// body is the request's JSON, the payload spliced in as it is (withPayload).
func (u UpdateAlarm) body() ([]byte, error) {
	b, err := marshal(updateWire{
		Label: u.Label, CronExpr: u.CronExpr, Timezone: u.Timezone, WakeMessage: u.WakeMessage,
		MaxFailures: u.MaxFailures, Misfire: u.Misfire, CatchUpLimit: u.CatchUpLimit,
		CatchUpWindow: u.CatchUpWindow, MaxConsecutiveSkips: u.MaxConsecutiveSkips,
		StartAt: bound(u.StartAt), EndAt: bound(u.EndAt), MaxFires: u.MaxFires, JitterSeconds: u.JitterSeconds,
		ExcludeCalendars: u.ExcludeCalendars,
		Tags:             u.Tags,
	})
	if err != nil {
		return nil, err
	}
	return withPayload(b, u.Payload)
}

// bound is a start_at or end_at member: left out for nil, null for the zero time.
func bound(t *time.Time) json.RawMessage {
	switch {
	case t == nil:
		return nil
	case t.IsZero():
		return json.RawMessage("null")
	}
	return json.RawMessage(`"` + t.UTC().Format(time.RFC3339Nano) + `"`)
}

// UpdateAlarm changes one of the owner's alarms (PATCH /v1/alarms/{id}) and answers it
// as it now is. The server validates the result as a create would, the refusal's Field
// naming the input; an updated event lists the fields that changed, and an update that
// changes nothing changes nothing. A change to an active series' schedule (expression,
// zone, bounds, jitter) moves it to its first occurrence after now under the new one.
// A finished alarm cannot be updated (invalid_state).
func (c *Client) UpdateAlarm(ctx context.Context, id string, req UpdateAlarm) (Alarm, error) {
	body, err := req.body()
	if err != nil {
		return Alarm{}, err
	}
	return c.alarmActionWith(ctx, http.MethodPatch, id, "", body)
}
