package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// AlarmEditor changes an alarm's definition in place (*owners.Alarms, domain.Update).
type AlarmEditor interface {
	Update(ctx context.Context, owner, id string, p domain.Patch) (domain.Alarm, error)
}

// patchRequest is the body of PATCH /v1/alarms/{id}. Every member is optional and kept
// raw, so that "absent" (leave it) and null (clear a bound) differ.
type patchRequest struct {
	Label               json.RawMessage `json:"label"`
	CronExpr            json.RawMessage `json:"cron_expr"`
	Timezone            json.RawMessage `json:"timezone"`
	WakeMessage         json.RawMessage `json:"wake_message"`
	Payload             json.RawMessage `json:"payload"`
	MaxFailures         json.RawMessage `json:"max_failures"`
	Misfire             json.RawMessage `json:"misfire"`
	CatchUpLimit        json.RawMessage `json:"catch_up_limit"`
	CatchUpWindow       json.RawMessage `json:"catch_up_window"`
	MaxConsecutiveSkips json.RawMessage `json:"max_consecutive_skips"`
	StartAt             json.RawMessage `json:"start_at"`
	EndAt               json.RawMessage `json:"end_at"`
	MaxFires            json.RawMessage `json:"max_fires"`
	JitterSeconds       json.RawMessage `json:"jitter_seconds"`
	ExcludeCalendars    json.RawMessage `json:"exclude_calendars"` // null or [] clears them
	Tags                json.RawMessage `json:"tags"`              // replaces the whole set; null or {} clears it

	// What an alarm keeps for life: named so the refusal can say so.
	Kind           json.RawMessage `json:"kind"`
	Delivery       json.RawMessage `json:"delivery"`
	ConversationID json.RawMessage `json:"conversation_id"`
	IdempotencyKey json.RawMessage `json:"idempotency_key"`
	FireAt         json.RawMessage `json:"fire_at"`
	DelaySeconds   json.RawMessage `json:"delay_seconds"`
	Endpoint       json.RawMessage `json:"endpoint"`
}

// patch turns the request into the domain's Patch; the domain checks the rules.
func (req patchRequest) patch() (domain.Patch, error) {
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"kind", req.Kind}, {"delivery", req.Delivery}, {"conversation_id", req.ConversationID},
		{"idempotency_key", req.IdempotencyKey}, {"fire_at", req.FireAt}, {"delay_seconds", req.DelaySeconds},
		{"endpoint", req.Endpoint}} {
		if f.raw != nil {
			return domain.Patch{}, invalidArgument(f.name, "cannot be changed; cancel the alarm and create another")
		}
	}
	var p domain.Patch
	var err error
	str := func(field string, raw json.RawMessage) *string {
		return patchMember[string](&err, field, raw, "a string")
	}
	num := func(field string, raw json.RawMessage) *int { return patchMember[int](&err, field, raw, "an integer") }
	instant := func(field string, raw json.RawMessage) *time.Time {
		if err != nil || raw == nil {
			return nil
		}
		if string(bytes.TrimSpace(raw)) == "null" {
			return new(time.Time) // clears the bound
		}
		s := str(field, raw)
		if s == nil {
			return nil
		}
		t, e := time.Parse(time.RFC3339Nano, *s)
		if e != nil {
			err = invalidArgument(field, `must be an RFC 3339 time such as "2030-01-02T15:04:05Z", or null to clear it`)
			return nil
		}
		return &t
	}
	p.Label, p.CronExpr, p.Timezone = str("label", req.Label), str("cron_expr", req.CronExpr), str("timezone", req.Timezone)
	p.WakeMessage, p.MaxFailures = str("wake_message", req.WakeMessage), num("max_failures", req.MaxFailures)
	if req.Payload != nil {
		payload := append(json.RawMessage(nil), req.Payload...)
		p.Payload = &payload
	}
	if m := str("misfire", req.Misfire); m != nil {
		p.Misfire = (*domain.Misfire)(m)
	}
	if n := num("catch_up_limit", req.CatchUpLimit); n != nil {
		if *n == 0 {
			return p, invalidArgument("catch_up_limit", fmt.Sprintf("must be between 1 and %d, got 0", domain.MaxCatchUpLimit))
		}
		p.CatchUpLimit = n
	}
	if w := str("catch_up_window", req.CatchUpWindow); w != nil {
		d := time.Duration(0)
		if *w != "" {
			if d, err = time.ParseDuration(*w); err != nil {
				return p, invalidArgument("catch_up_window", `must be a duration such as "36h" or "90m" ("" for none)`)
			}
		}
		p.CatchUpWindow = &d
	}
	p.MaxConsecutiveSkips, p.MaxFires = num("max_consecutive_skips", req.MaxConsecutiveSkips), num("max_fires", req.MaxFires)
	p.JitterSeconds = num("jitter_seconds", req.JitterSeconds)
	p.StartAt, p.EndAt = instant("start_at", req.StartAt), instant("end_at", req.EndAt)
	if req.ExcludeCalendars != nil && string(bytes.TrimSpace(req.ExcludeCalendars)) == "null" {
		p.ExcludeCalendars = &[]string{}
	} else {
		p.ExcludeCalendars = patchMember[[]string](&err, "exclude_calendars", req.ExcludeCalendars, "an array of calendar names")
	}
	if err != nil {
		return p, err
	}
	p.Tags, err = patchTags(req.Tags)
	return p, err
}

// updateAlarm serves PATCH /v1/alarms/{id}.
func (a *api) updateAlarm(w http.ResponseWriter, r *http.Request, owner string) {
	var req patchRequest
	if !a.readObject(w, r, &req) {
		return
	}
	p, err := req.patch()
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.action(func(ctx context.Context, owner, id string) (domain.Alarm, error) {
		return a.editor.Update(ctx, owner, id, p)
	})(w, r, owner)
}

// patchMember is the member field of a patch decoded as a T (what names a T for the
// refusal), nil when it is absent; after the first refusal, held in *err, nil too.
func patchMember[T any](err *error, field string, raw json.RawMessage, what string) *T {
	if *err != nil || raw == nil {
		return nil
	}
	var v T
	if json.Unmarshal(raw, &v) != nil {
		*err = badRequest(field, field+" must be "+what)
		return nil
	}
	return &v
}
