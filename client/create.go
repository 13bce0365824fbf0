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
	// CronExpr is a five-field cron expression; Timezone the IANA zone it is read in
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
	// MaxFailures bounds failed deliveries of one occurrence; 0 means the server's
	// default.
	MaxFailures int
}

// createWire is the JSON body of POST /v1/alarms, less the payload (see body).
type createWire struct {
	Kind           domain.Kind     `json:"kind"`
	FireAt         *string         `json:"fire_at,omitempty"`
	DelaySeconds   *float64        `json:"delay_seconds,omitempty"`
	CronExpr       string          `json:"cron_expr,omitempty"`
	Timezone       string          `json:"timezone,omitempty"`
	Label          string          `json:"label,omitempty"`
	ConversationID string          `json:"conversation_id,omitempty"`
	WakeMessage    string          `json:"wake_message,omitempty"`
	Delivery       domain.Delivery `json:"delivery,omitempty"`
	IdempotencyKey string          `json:"idempotency_key,omitempty"`
	MaxFailures    int             `json:"max_failures,omitempty"`
}

var errBadPayload = errors.New("client: Payload is not valid JSON")

// body is the request's JSON. The payload is spliced in as it is, because
// encoding/json would compact a json.RawMessage, and the server promises to store
// the payload byte for byte as the client wrote it.
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
	}
	if w.Kind == "" {
		w.Kind = domain.KindOnce
		if r.CronExpr != "" {
			w.Kind = domain.KindCron
		}
	}
	if !r.FireAt.IsZero() {
		at := r.FireAt.UTC().Format(time.RFC3339Nano)
		w.FireAt = &at
	}
	if r.Delay != 0 || (w.Kind == domain.KindOnce && r.FireAt.IsZero()) {
		sec := r.Delay.Seconds()
		w.DelaySeconds = &sec
	}
	b, err := marshal(w)
	if err != nil {
		return nil, err
	}
	if len(r.Payload) == 0 {
		return b, nil
	}
	if !json.Valid(r.Payload) {
		return nil, errBadPayload
	}
	// b is a non-empty object ("kind" is always there): replace its closing brace.
	var buf bytes.Buffer
	buf.Grow(len(b) + len(r.Payload) + 12)
	buf.Write(b[:len(b)-1])
	buf.WriteString(`,"payload":`)
	buf.Write(bytes.TrimSpace(r.Payload))
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
