package domain

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits on user input. They are part of the API contract (README lists them).
const (
	MaxLabelLen          = 200       // characters
	MaxPayloadBytes      = 64 * 1024 // bytes of JSON
	MaxWakeMessageLen    = 16 * 1024 // characters
	MaxConversationIDLen = 200       // characters
	MaxIdempotencyKeyLen = 200       // characters
	MinMaxFailures       = 1
	MaxMaxFailures       = 100
	// MaxDelay bounds delay_seconds and fire_at: an alarm more than ten years out is
	// almost certainly a unit mistake, and it keeps time arithmetic far from overflow.
	MaxDelay = 10 * 365 * 24 * time.Hour
)

// Spec is what a client asks for. Exactly one of FireAt and Delay is set for a once
// alarm; CronExpr (and optionally Timezone) for a cron alarm.
type Spec struct {
	Owner          string
	Label          string
	Kind           Kind
	FireAt         *time.Time
	Delay          *time.Duration
	CronExpr       string
	Timezone       string
	ConversationID string
	WakeMessage    string
	Payload        json.RawMessage
	IdempotencyKey string
	MaxFailures    int // 0 means Defaults.MaxFailures
	Delivery       Delivery
	Series         Series // cron only
	// Endpoint names one of the owner's endpoints; "" for the server's --wake-url. That
	// it exists is the caller's to check (owners.Alarms asks the store).
	Endpoint string
	// Tags are the alarm's key/value pairs (ValidateTags); nil or empty for none.
	Tags map[string]string
	// OnDuplicate is what a repeat of IdempotencyKey does ("": OnDuplicateReturn);
	// MaxWait, with OnDuplicateReplace only, caps the fire time at the key's alarm's
	// creation plus it (debounce.go).
	OnDuplicate OnDuplicate
	MaxWait     *time.Duration
	// TraceParent and TraceState are the W3C trace context the alarm is created in
	// (trace.go); "" for none. A traceparent of a later version is kept as version 00.
	TraceParent string
	TraceState  string
}

// Defaults fill in what a Spec leaves out.
type Defaults struct {
	MaxFailures int // used when Spec.MaxFailures is 0
}

// NewAlarm validates a Spec and builds a new active alarm with the given id, created at
// now. Every refusal is a *ValidationError naming the field.
func NewAlarm(id string, spec Spec, now time.Time, d Defaults) (Alarm, error) {
	if err := validateCommon(spec); err != nil {
		return Alarm{}, err
	}
	debounce, err := spec.debounce()
	if err != nil {
		return Alarm{}, err
	}
	traceParent, err := traceContext(spec.TraceParent, spec.TraceState)
	if err != nil {
		return Alarm{}, err
	}
	now = now.UTC()
	a := Alarm{
		ID:             id,
		Owner:          spec.Owner,
		Label:          spec.Label,
		Kind:           spec.Kind,
		ConversationID: spec.ConversationID,
		WakeMessage:    spec.WakeMessage,
		Endpoint:       spec.Endpoint,
		Payload:        spec.Payload,
		Status:         StatusActive,
		Delivery:       spec.Delivery,
		IdempotencyKey: spec.IdempotencyKey,
		MaxFailures:    spec.MaxFailures,
		CreatedAt:      now,
		UpdatedAt:      now,
		Tags:           cloneTags(spec.Tags),
		TraceParent:    traceParent,
		TraceState:     spec.TraceState,
	}
	if a.Delivery == "" {
		a.Delivery = AtLeastOnce
	}
	if a.MaxFailures == 0 {
		a.MaxFailures = d.MaxFailures
	}
	if a.MaxFailures < MinMaxFailures || a.MaxFailures > MaxMaxFailures {
		return Alarm{}, invalid("max_failures", "must be between %d and %d, got %d", MinMaxFailures, MaxMaxFailures, a.MaxFailures)
	}
	if len(a.Payload) == 0 {
		a.Payload = json.RawMessage("null")
	}

	switch spec.Kind {
	case KindOnce:
		at, err := onceInstant(spec, now)
		if err != nil {
			return Alarm{}, err
		}
		if debounce != nil {
			at = debounce.capped(at, now)
		}
		a.FireAt, a.NextFireAt, a.ScheduledFor = at, at, at
		a.Debounce = debounce
	case KindCron:
		if spec.FireAt != nil {
			return Alarm{}, invalid("fire_at", "is for once alarms; a cron alarm takes cron_expr")
		}
		if spec.Delay != nil {
			return Alarm{}, invalid("delay_seconds", "is for once alarms; a cron alarm takes cron_expr")
		}
		if err := spec.Series.validate(); err != nil {
			return Alarm{}, err
		}
		a.Series = spec.Series
		a.Series.StartAt, a.Series.EndAt = utcOrZero(a.Series.StartAt), utcOrZero(a.Series.EndAt)
		a.CronExpr = strings.TrimSpace(spec.CronExpr)
		a.Timezone = spec.Timezone
		if a.Timezone == "" {
			a.Timezone = "UTC"
		}
		sched, err := ParseSchedule(a.CronExpr, a.Timezone)
		if err != nil {
			return Alarm{}, err
		}
		if !a.Series.StartAt.IsZero() && a.Series.StartAt.Sub(now) > MaxDelay {
			return Alarm{}, invalid("start_at", "is more than ten years away")
		}
		if _, ok := sched.Next(now); !ok {
			return Alarm{}, invalid("cron_expr", "%q never fires in the next 5 years", a.CronExpr)
		}
		next, ok := a.firstFrom(sched, now)
		if !ok {
			return Alarm{}, invalid("end_at", "leaves the series no occurrence: the first after %s is later than %s",
				maxTime(now, a.Series.StartAt).Format(time.RFC3339), a.Series.EndAt.Format(time.RFC3339))
		}
		a.NextFireAt, a.ScheduledFor = a.dueAt(next), next
	}
	return a, nil
}

func utcOrZero(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func validateCommon(s Spec) error {
	if s.Owner == "" {
		return invalid("owner", "is required")
	}
	if s.Kind != KindOnce && s.Kind != KindCron {
		if s.Kind == "" {
			return invalid("kind", `is required: "once" or "cron"`)
		}
		return invalid("kind", `must be "once" or "cron", got %q`, s.Kind)
	}
	for _, f := range []struct {
		field, value string
		limit        int
	}{
		{"label", s.Label, MaxLabelLen},
		{"wake_message", s.WakeMessage, MaxWakeMessageLen},
		{"conversation_id", s.ConversationID, MaxConversationIDLen},
		{"idempotency_key", s.IdempotencyKey, MaxIdempotencyKeyLen},
	} {
		if err := checkText(f.field, f.value, f.limit); err != nil {
			return err
		}
	}
	if err := ValidateTags(s.Tags); err != nil {
		return err
	}
	if s.Series.Notice != "" {
		return invalid("notice", "is the server's: only the failure notices it makes carry it")
	}
	if s.Endpoint != "" && !endpointName.MatchString(s.Endpoint) {
		return invalid("endpoint", "%q is not an endpoint name", s.Endpoint)
	}
	if len(s.Payload) > MaxPayloadBytes {
		return invalid("payload", "is %d bytes; the limit is %d", len(s.Payload), MaxPayloadBytes)
	}
	if len(s.Payload) > 0 && !json.Valid(s.Payload) {
		return invalid("payload", "is not valid JSON")
	}
	switch s.Delivery {
	case "", AtLeastOnce, AtMostOnce:
	default:
		return invalid("delivery", `must be "at_least_once" or "at_most_once", got %q`, s.Delivery)
	}
	if s.Kind == KindOnce {
		if s.CronExpr != "" {
			return invalid("cron_expr", "is for cron alarms; a once alarm takes fire_at or delay_seconds")
		}
		if s.Timezone != "" {
			return invalid("timezone", "is for cron alarms; give fire_at with an offset instead")
		}
		if field := s.Series.firstSetField(); field != "" {
			return invalid(field, "is for cron alarms")
		}
	}
	return nil
}

func onceInstant(s Spec, now time.Time) (time.Time, error) {
	switch {
	case s.FireAt != nil && s.Delay != nil:
		return time.Time{}, invalid("fire_at", "give fire_at or delay_seconds, not both")
	case s.FireAt == nil && s.Delay == nil:
		return time.Time{}, invalid("fire_at", "a once alarm needs fire_at or delay_seconds")
	case s.Delay != nil:
		if *s.Delay < 0 {
			return time.Time{}, invalid("delay_seconds", "must not be negative")
		}
		if *s.Delay > MaxDelay {
			return time.Time{}, invalid("delay_seconds", "must be at most %d (ten years)", int64(MaxDelay/time.Second))
		}
		return now.Add(*s.Delay), nil
	default:
		at := s.FireAt.UTC()
		if at.Sub(now) > MaxDelay {
			return time.Time{}, invalid("fire_at", "is more than ten years away")
		}
		// A fire_at in the past is accepted and fires at once, like a late timer.
		// Far in the past is almost always a bug in the caller.
		if now.Sub(at) > 24*time.Hour {
			return time.Time{}, invalid("fire_at", "is more than 24 hours in the past (%s)", at.Format(time.RFC3339))
		}
		return at, nil
	}
}

// Rehydrate checks a row loaded from a store. It enforces the invariants a stored
// alarm must keep, not the rules for new input (a stored fire_at may be long past).
func Rehydrate(a Alarm) (Alarm, error) {
	switch a.Kind {
	case KindOnce, KindCron:
	default:
		return Alarm{}, fmt.Errorf("domain: stored alarm %s has unknown kind %q", a.ID, a.Kind)
	}
	switch a.Status {
	case StatusActive, StatusPaused, StatusFired, StatusCancelled, StatusFailed:
	default:
		return Alarm{}, fmt.Errorf("domain: stored alarm %s has unknown status %q", a.ID, a.Status)
	}
	switch a.Delivery {
	case AtLeastOnce, AtMostOnce:
	default:
		return Alarm{}, fmt.Errorf("domain: stored alarm %s has unknown delivery %q", a.ID, a.Delivery)
	}
	if a.ID == "" || a.Owner == "" {
		return Alarm{}, fmt.Errorf("domain: stored alarm %q lacks id or owner", a.ID)
	}
	if a.ClaimedBy == "" && !a.ClaimedAt.IsZero() || a.ClaimedBy != "" && a.ClaimedAt.IsZero() {
		return Alarm{}, fmt.Errorf("domain: stored alarm %s has a half-set lease", a.ID)
	}
	for _, t := range []*time.Time{&a.FireAt, &a.NextFireAt, &a.ScheduledFor, &a.ClaimedAt, &a.CreatedAt, &a.UpdatedAt, &a.LastFiredAt, &a.PausedUntil, &a.Series.StartAt, &a.Series.EndAt} {
		if !t.IsZero() {
			*t = t.UTC()
		}
	}
	return a, nil
}

// checkText refuses text every store can keep: valid UTF-8, no NUL (PostgreSQL text
// cannot hold it), at most limit characters.
func checkText(field, v string, limit int) error {
	if !utf8.ValidString(v) {
		return invalid(field, "is not valid UTF-8")
	}
	if strings.IndexByte(v, 0) >= 0 {
		return invalid(field, "must not contain NUL characters")
	}
	if n := utf8.RuneCountInString(v); n > limit {
		return invalid(field, "is %d characters; the limit is %d", n, limit)
	}
	return nil
}
