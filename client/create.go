package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// CreateAlarm is what an owner asks for: a once alarm at FireAt or after Delay, or a
// cron alarm on CronExpr in Timezone. Zero values are left out of the request, so the
// server's defaults and its validation apply.
type CreateAlarm struct {
	// Kind is "once" or "cron". Left zero, it is cron when CronExpr is set and once
	// otherwise.
	Kind domain.Kind
	// FireAt is when a once alarm fires. It may be up to a day in the past (the alarm
	// then fires at once).
	FireAt time.Time
	// Delay fires a once alarm this long after the server receives the request. A once
	// alarm with neither FireAt nor Delay fires as soon as possible (a delay of 0).
	Delay time.Duration
	// CronExpr is a five-field cron expression (six with a leading seconds field); Timezone the IANA zone it is read in
	// (the server's default is UTC).
	CronExpr string
	Timezone string

	Label          string
	ConversationID string
	WakeMessage    string
	// Payload is any JSON value, sent and stored byte for byte; nil sends none.
	Payload json.RawMessage
	// Delivery is domain.AtLeastOnce (the server's default) or domain.AtMostOnce.
	Delivery domain.Delivery
	// IdempotencyKey makes a repeat of the same request answer the alarm the first one
	// made (deduped), instead of making a second.
	IdempotencyKey string
	// OnDuplicate domain.OnDuplicateReplace debounces a once alarm: a repeat of
	// IdempotencyKey moves the key's active alarm to its own fire time and replaces its
	// payload, label and wake message (CreateAlarmResult's Replaced); MaxWait, with it,
	// caps every fire time at the key's first create plus MaxWait (0: no cap).
	// docs/schedules.md, "Debounce".
	OnDuplicate domain.OnDuplicate
	MaxWait     time.Duration
	// MaxFailures bounds failed deliveries of one occurrence; 0 means the server's
	// default.
	MaxFailures int
	// Endpoint names one of the owner's endpoints (ListMyEndpoints) that the wakes go
	// to; "" for the server's --wake-url. A name the owner has no endpoint of is
	// invalid (IsInvalid, field "endpoint"). It cannot be changed later.
	Endpoint string
	// Tags are key/value pairs to find the alarm by (ListAlarms.Tags) and to act on a
	// group (BulkAlarms): at most 16, keys of a-z, 0-9, '_', '.' and '-' (1..64), values
	// up to 200 characters; a bad one is invalid, field "tags" or "tags.<key>".
	Tags map[string]string

	// The rest are a cron alarm's options beyond its expression (docs/schedules.md
	// explains each); the server refuses them on a once alarm. Left zero, the series is
	// plain: fire_once, unbounded, without breaker or jitter.

	// Misfire is what the series does with occurrences it missed: domain.MisfireFireOnce
	// (the server's default), domain.MisfireSkip or domain.MisfireCatchUp.
	Misfire domain.Misfire
	// CatchUpLimit bounds catch_up to the newest this many missed occurrences (1..1000;
	// 0 means the server's default, 100). CatchUpWindow, a Go duration such as "36h",
	// drops missed occurrences older than that; "" means no window.
	CatchUpLimit  int
	CatchUpWindow string
	// MaxConsecutiveSkips pauses the series once that many occurrences in a row were
	// given up; 0 never does.
	MaxConsecutiveSkips int
	// StartAt and EndAt bound the occurrences; zero leaves that side unbounded.
	StartAt time.Time
	EndAt   time.Time
	// MaxFires ends the series after that many delivered occurrences; 0 is unbounded.
	MaxFires int
	// JitterSeconds (0..3600) delays each occurrence by up to that many seconds, by the
	// same amount on every node and retry.
	JitterSeconds int
	// ExcludeCalendars names at most 8 of the owner's calendars (PutCalendar): an
	// occurrence on a day one excludes is not delivered. A name the owner has no
	// calendar of is invalid (field "exclude_calendars[i]").
	ExcludeCalendars []string
}

// createWire is the JSON body of POST /v1/alarms, less the payload (see body).
type createWire struct {
	Kind           domain.Kind       `json:"kind"`
	FireAt         *string           `json:"fire_at,omitempty"`
	DelaySeconds   *float64          `json:"delay_seconds,omitempty"`
	CronExpr       string            `json:"cron_expr,omitempty"`
	Timezone       string            `json:"timezone,omitempty"`
	Label          string            `json:"label,omitempty"`
	ConversationID string            `json:"conversation_id,omitempty"`
	WakeMessage    string            `json:"wake_message,omitempty"`
	Delivery       domain.Delivery   `json:"delivery,omitempty"`
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
	MaxFailures    int               `json:"max_failures,omitempty"`
	Endpoint       string            `json:"endpoint,omitempty"`
	OnDuplicate    string            `json:"on_duplicate,omitempty"`
	MaxWaitSeconds *float64          `json:"max_wait_seconds,omitempty"`
	Tags           map[string]string `json:"tags,omitempty"`

	Misfire             domain.Misfire `json:"misfire,omitempty"`
	CatchUpLimit        int            `json:"catch_up_limit,omitempty"`
	CatchUpWindow       string         `json:"catch_up_window,omitempty"`
	MaxConsecutiveSkips int            `json:"max_consecutive_skips,omitempty"`
	StartAt             *string        `json:"start_at,omitempty"`
	EndAt               *string        `json:"end_at,omitempty"`
	MaxFires            int            `json:"max_fires,omitempty"`
	JitterSeconds       int            `json:"jitter_seconds,omitempty"`
	ExcludeCalendars    []string       `json:"exclude_calendars,omitempty"`
}

var errBadPayload = errors.New("client: Payload is not valid JSON")

// body is the request's JSON, the payload spliced in as it is (withPayload).
func (r CreateAlarm) body() ([]byte, error) {
	w := createWire{
		Kind:           r.Kind,
		CronExpr:       r.CronExpr,
		Timezone:       r.Timezone,
		Label:          r.Label,
		ConversationID: r.ConversationID,
		WakeMessage:    r.WakeMessage,
		Delivery:       r.Delivery,
		IdempotencyKey: r.IdempotencyKey,
		MaxFailures:    r.MaxFailures,
		Endpoint:       r.Endpoint,
		Tags:           r.Tags,

		Misfire:             r.Misfire,
		CatchUpLimit:        r.CatchUpLimit,
		CatchUpWindow:       r.CatchUpWindow,
		MaxConsecutiveSkips: r.MaxConsecutiveSkips,
		StartAt:             optionalTime(r.StartAt),
		EndAt:               optionalTime(r.EndAt),
		MaxFires:            r.MaxFires,
		JitterSeconds:       r.JitterSeconds,
		ExcludeCalendars:    r.ExcludeCalendars,
	}
	if w.Kind == "" {
		w.Kind = domain.KindOnce
		if r.CronExpr != "" {
			w.Kind = domain.KindCron
		}
	}
	w.OnDuplicate = string(r.OnDuplicate)
	if r.MaxWait != 0 {
		sec := r.MaxWait.Seconds()
		w.MaxWaitSeconds = &sec
	}
	w.FireAt = optionalTime(r.FireAt)
	if r.Delay != 0 || (w.Kind == domain.KindOnce && r.FireAt.IsZero()) {
		sec := r.Delay.Seconds()
		w.DelaySeconds = &sec
	}
	b, err := marshal(w)
	if err != nil {
		return nil, err
	}
	return withPayload(b, r.Payload)
}

// withPayload adds "payload" to the encoded object b, as it is: encoding/json would
// compact a json.RawMessage, and the server promises to store the payload byte for
// byte as the client wrote it. A nil payload adds nothing.
func withPayload(b []byte, payload json.RawMessage) ([]byte, error) {
	if len(payload) == 0 {
		return b, nil
	}
	if !json.Valid(payload) {
		return nil, errBadPayload
	}
	// Replace b's closing brace; b may be the empty object.
	var buf bytes.Buffer
	buf.Grow(len(b) + len(payload) + 12)
	buf.Write(b[:len(b)-1])
	if len(b) > 2 {
		buf.WriteByte(',')
	}
	buf.WriteString(`"payload":`)
	buf.Write(bytes.TrimSpace(payload))
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// optionalTime is an instant as the API writes it, or nil (left out) for the zero time.
func optionalTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}
