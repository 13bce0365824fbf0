package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// AlarmCreator creates alarms (*owners.Alarms). CreateOne returns the alarm and whether
// a previous create with the same idempotency key made it (deduped) or this one replaced
// it (debounce), its refusal as the error; CreateBatch validates and creates many in one
// transaction, one result per spec, in order.
type AlarmCreator interface {
	CreateOne(ctx context.Context, spec domain.Spec) (ports.CreateResult, error)
	CreateBatch(ctx context.Context, specs []domain.Spec) ([]ports.CreateResult, error)
}

// createRequest is the body of POST /v1/alarms. Optional fields are pointers where
// "absent" and a zero value mean different things.
type createRequest struct {
	Label          string          `json:"label"`
	Kind           string          `json:"kind"`
	DelaySeconds   *float64        `json:"delay_seconds"`
	FireAt         *string         `json:"fire_at"`
	CronExpr       string          `json:"cron_expr"`
	Timezone       string          `json:"timezone"`
	ConversationID string          `json:"conversation_id"`
	WakeMessage    string          `json:"wake_message"`
	Payload        json.RawMessage `json:"payload"` // the bytes as posted, kept verbatim
	IdempotencyKey string          `json:"idempotency_key"`
	MaxFailures    *int            `json:"max_failures"` // nil: the server default
	Delivery       string          `json:"delivery"`
	// Endpoint names one of the owner's endpoints (an admin registers them); "" for the
	// server's --wake-url.
	Endpoint string `json:"endpoint"`
	// Tags are the alarm's key/value pairs (domain.ValidateTags).
	Tags map[string]string `json:"tags"`
	// TraceParent and TraceState are the W3C trace context the alarm is created in,
	// when not the request's headers' (a batch's items may each have their own).
	TraceParent string `json:"traceparent"`
	TraceState  string `json:"tracestate"`
	seriesRequest
	debounceRequest
}

// seriesRequest is a cron alarm's options beyond its expression (domain.Series), as
// create takes them.
type seriesRequest struct {
	Misfire             string  `json:"misfire"`
	CatchUpLimit        *int    `json:"catch_up_limit"` // nil: the default; 0 is refused
	CatchUpWindow       string  `json:"catch_up_window"`
	MaxConsecutiveSkips int     `json:"max_consecutive_skips"`
	StartAt             *string `json:"start_at"`
	EndAt               *string `json:"end_at"`
	MaxFires            int     `json:"max_fires"`
	JitterSeconds       int     `json:"jitter_seconds"`
	// ExcludeCalendars names the owner's calendars whose days the series skips.
	ExcludeCalendars []string `json:"exclude_calendars"`
}

// series turns the options into the domain's; the domain checks their rules.
func (req seriesRequest) series() (domain.Series, error) {
	s := domain.Series{
		Misfire:             domain.Misfire(req.Misfire),
		MaxConsecutiveSkips: req.MaxConsecutiveSkips,
		MaxFires:            req.MaxFires,
		JitterSeconds:       req.JitterSeconds,
		ExcludeCalendars:    req.ExcludeCalendars,
	}
	if strings.ContainsRune(req.Misfire, 0) {
		return s, invalidArgument("misfire", "must not contain NUL characters")
	}
	if req.CatchUpLimit != nil {
		if *req.CatchUpLimit == 0 {
			return s, invalidArgument("catch_up_limit", fmt.Sprintf("must be between 1 and %d, got 0", domain.MaxCatchUpLimit))
		}
		s.CatchUpLimit = *req.CatchUpLimit
	}
	if req.CatchUpWindow != "" {
		d, err := time.ParseDuration(req.CatchUpWindow)
		if err != nil {
			return s, invalidArgument("catch_up_window", `must be a duration such as "36h" or "90m"`)
		}
		s.CatchUpWindow = d
	}
	var err error
	if s.StartAt, err = optionalTime("start_at", req.StartAt); err != nil {
		return s, err
	}
	if s.EndAt, err = optionalTime("end_at", req.EndAt); err != nil {
		return s, err
	}
	return s, nil
}

// optionalTime parses an RFC 3339 member that may be absent (the zero time).
func optionalTime(field string, v *string) (time.Time, error) {
	if v == nil {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *v)
	if err != nil {
		return time.Time{}, invalidArgument(field, `must be an RFC 3339 time such as "2030-01-02T15:04:05Z"`)
	}
	return t, nil
}

// spec turns the request into the domain's Spec. It checks only what the domain
// cannot see from a Spec; every other rule is domain.NewAlarm's.
func (req createRequest) spec(owner string) (domain.Spec, error) {
	s := domain.Spec{
		Owner:          owner,
		Label:          req.Label,
		Kind:           domain.Kind(req.Kind),
		CronExpr:       req.CronExpr,
		Timezone:       req.Timezone,
		ConversationID: req.ConversationID,
		WakeMessage:    req.WakeMessage,
		Payload:        req.Payload,
		IdempotencyKey: req.IdempotencyKey,
		Delivery:       domain.Delivery(req.Delivery),
		Endpoint:       req.Endpoint,
		Tags:           req.Tags,
		TraceParent:    req.TraceParent,
		TraceState:     req.TraceState,
	}
	for _, f := range []struct{ name, value string }{
		{"label", req.Label}, {"kind", req.Kind}, {"cron_expr", req.CronExpr}, {"timezone", req.Timezone},
		{"conversation_id", req.ConversationID}, {"wake_message", req.WakeMessage},
		{"idempotency_key", req.IdempotencyKey}, {"delivery", req.Delivery}, {"endpoint", req.Endpoint},
	} {
		// PostgreSQL text cannot hold NUL, and no user means one; refuse it here rather
		// than fail in the store with a 500.
		if strings.ContainsRune(f.value, 0) {
			return domain.Spec{}, invalidArgument(f.name, "must not contain NUL characters")
		}
	}
	if req.MaxFailures != nil {
		// The Spec reads 0 as "use the default"; a client who wrote 0 meant 0.
		if *req.MaxFailures == 0 {
			return domain.Spec{}, invalidArgument("max_failures",
				fmt.Sprintf("must be between %d and %d, got 0", domain.MinMaxFailures, domain.MaxMaxFailures))
		}
		s.MaxFailures = *req.MaxFailures
	}
	if req.DelaySeconds != nil {
		d := secondsToDuration(*req.DelaySeconds)
		s.Delay = &d
	}
	if req.FireAt != nil {
		at, err := time.Parse(time.RFC3339Nano, *req.FireAt)
		if err != nil {
			return domain.Spec{}, invalidArgument("fire_at", `must be an RFC 3339 time such as "2030-01-02T15:04:05Z"`)
		}
		s.FireAt = &at
	}
	series, err := req.series()
	if err != nil {
		return domain.Spec{}, err
	}
	s.Series = series
	if err := req.debounceRequest.apply(&s); err != nil {
		return domain.Spec{}, err
	}
	return s, nil
}

// secondsToDuration converts fractional seconds, saturating instead of overflowing so
// that an absurd delay reaches the domain's range check as an absurd delay.
func secondsToDuration(sec float64) time.Duration {
	ns := math.Round(sec * float64(time.Second))
	switch {
	case ns >= math.MaxInt64:
		return time.Duration(math.MaxInt64)
	case ns <= math.MinInt64:
		return time.Duration(math.MinInt64)
	default:
		return time.Duration(ns)
	}
}

// createAlarm serves POST /v1/alarms.
func (a *api) createAlarm(w http.ResponseWriter, r *http.Request, owner string) {
	var req createRequest
	if !a.readObject(w, r, &req) {
		return
	}
	spec, err := req.spec(owner)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	ctx, span := a.startCreate(r)
	span.adopt(&spec)
	res, err := a.creator.CreateOne(ctx, spec)
	span.end(res.Alarm.ID, 0, err)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var out bytes.Buffer
	if err := appendCreated(&out, res); err != nil {
		a.writeError(w, r, err)
		return
	}
	out.WriteByte('\n')
	status := http.StatusOK // the existing alarm: as the first create made it, or replaced
	if !res.Deduped && !res.Replaced {
		status = http.StatusCreated
		w.Header().Set("Location", "/v1/alarms/"+url.PathEscape(res.Alarm.ID))
	}
	writeBody(w, status, out.Bytes())
}
