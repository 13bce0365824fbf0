package domain

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"
	"unicode/utf8"
)

// fuzzNow is a fixed "now" so a failing input replays identically.
var fuzzNow = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

// fuzzFields is every field name NewAlarm may report; the HTTP API puts it in the error.
var fuzzFields = map[string]bool{
	"owner": true, "kind": true, "label": true, "wake_message": true, "conversation_id": true,
	"idempotency_key": true, "payload": true, "delivery": true, "max_failures": true,
	"fire_at": true, "delay_seconds": true, "cron_expr": true, "timezone": true,
}

// fuzzDelay turns delay_seconds as the API receives it into the Spec's Delay. Zero means
// "not given", so both and neither of fire_at/delay are explored. Counts beyond what a
// Duration holds saturate, as a careful decoder would, rather than wrap.
func fuzzDelay(seconds int64) *time.Duration {
	if seconds == 0 {
		return nil
	}
	d := time.Duration(math.MaxInt64)
	switch {
	case seconds < math.MinInt64/int64(time.Second):
		d = math.MinInt64
	case seconds <= math.MaxInt64/int64(time.Second):
		d = time.Duration(seconds) * time.Second
	}
	return &d
}

// FuzzNewAlarm: whatever a client sends, NewAlarm never panics, and either refuses it
// with a *ValidationError naming a known field or builds an alarm a dispatcher can run.
func FuzzNewAlarm(f *testing.F) {
	f.Add("tea", "once", "", "", []byte(`{"n":1}`), int64(600), 0)
	f.Add("standup", "cron", "0 9 * * 1-5", "Europe/Paris", []byte(nil), int64(0), 3)
	f.Fuzz(func(t *testing.T, label, kind, cronExpr, tz string, payload []byte, delaySeconds int64, maxFailures int) {
		spec := Spec{
			Owner:       "alice",
			Label:       label,
			Kind:        Kind(kind),
			CronExpr:    cronExpr,
			Timezone:    tz,
			Payload:     payload,
			Delay:       fuzzDelay(delaySeconds),
			MaxFailures: maxFailures,
		}
		a, err := NewAlarm("id-1", spec, fuzzNow, Defaults{MaxFailures: 5})
		if err != nil {
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("err = %v (%T), want a *ValidationError", err, err)
			}
			if !fuzzFields[verr.Field] || verr.Message == "" {
				t.Fatalf("ValidationError{Field: %q, Message: %q}: want a known field and a message", verr.Field, verr.Message)
			}
			return
		}

		if a.Status != StatusActive || a.FailureCount != 0 || a.Claimed() {
			t.Fatalf("new alarm not fresh and active: %+v", a)
		}
		if a.NextFireAt.IsZero() || !a.NextFireAt.Equal(a.ScheduledFor) || a.NextFireAt.Location() != time.UTC {
			t.Fatalf("next_fire_at %v, scheduled_for %v: want equal, set, UTC", a.NextFireAt, a.ScheduledFor)
		}
		if !json.Valid(a.Payload) || len(a.Payload) > MaxPayloadBytes {
			t.Fatalf("payload %q is not valid JSON within the limit", a.Payload)
		}
		if len(payload) > 0 && string(a.Payload) != string(payload) {
			t.Fatalf("payload %q not kept byte for byte: %q", payload, a.Payload)
		}
		if n := utf8.RuneCountInString(a.Label); n > MaxLabelLen || !utf8.ValidString(a.Label) {
			t.Fatalf("label of %d characters (valid UTF-8: %v) accepted", n, utf8.ValidString(a.Label))
		}
		if a.MaxFailures < MinMaxFailures || a.MaxFailures > MaxMaxFailures || a.Delivery != AtLeastOnce {
			t.Fatalf("max_failures %d, delivery %q", a.MaxFailures, a.Delivery)
		}
		switch a.Kind {
		case KindOnce:
			if a.NextFireAt.Before(fuzzNow) || a.NextFireAt.Sub(fuzzNow) > MaxDelay || !a.FireAt.Equal(a.NextFireAt) {
				t.Fatalf("once alarm due at %v (fire_at %v), now %v", a.NextFireAt, a.FireAt, fuzzNow)
			}
			if a.CronExpr != "" || a.Timezone != "" {
				t.Fatalf("once alarm with cron fields %q %q", a.CronExpr, a.Timezone)
			}
		case KindCron:
			if !a.NextFireAt.After(fuzzNow) || a.NextFireAt.Sub(fuzzNow) > NeverFiresHorizon {
				t.Fatalf("cron alarm due at %v, now %v", a.NextFireAt, fuzzNow)
			}
			// The stored schedule must parse again, or the first fire would pause it.
			if _, err := ParseSchedule(a.CronExpr, a.Timezone); err != nil {
				t.Fatalf("stored schedule %q in %q no longer parses: %v", a.CronExpr, a.Timezone, err)
			}
		default:
			t.Fatalf("kind %q accepted", a.Kind)
		}
		if _, err := Rehydrate(a); err != nil {
			t.Fatalf("a new alarm does not survive a store round trip: %v", err)
		}

		// A first delivery that fails, then one that succeeds, never panics and keeps the
		// alarm consistent.
		claimed := fxClaim(a, "worker-a", a.NextFireAt)
		failed := Decide(Begin(claimed, a.NextFireAt, Policy{}), DeliveryFailed("boom"), a.NextFireAt, Policy{})
		if failed.Kind == TransitionRetry && !failed.ScheduledFor.Equal(a.ScheduledFor) || failed.ApplyTo(claimed).Claimed() {
			t.Fatalf("after a failure: %+v", failed)
		}
		done := Decide(Begin(claimed, a.NextFireAt, Policy{}), Delivered(), a.NextFireAt, Policy{}).ApplyTo(claimed)
		if a.Kind == KindOnce && done.Status != StatusFired ||
			a.Kind == KindCron && done.Status == StatusActive && !done.NextFireAt.After(a.NextFireAt) {
			t.Fatalf("after delivery: %+v", done)
		}
	})
}
