package domain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// nwNow is "now" for the NewAlarm tests: a Monday, 12:00 UTC.
var nwNow = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

var nwDefaults = Defaults{MaxFailures: 5}

func nwDuration(d time.Duration) *time.Duration { return &d }
func nwInstant(t time.Time) *time.Time          { return &t }

// nwOnceSpec and nwCronSpec are valid specs each bad-input case breaks in one way.
func nwOnceSpec() Spec {
	return Spec{Owner: "alice", Label: "tea", Kind: KindOnce, Delay: nwDuration(10 * time.Minute)}
}

func nwCronSpec() Spec {
	return Spec{Owner: "alice", Label: "standup", Kind: KindCron, CronExpr: "0 9 * * *"}
}

// Every refusal is a *ValidationError naming the input field the HTTP API reports.
func TestNewAlarmRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spec  func() Spec
		field string
	}{
		{"owner missing", func() Spec { s := nwOnceSpec(); s.Owner = ""; return s }, "owner"},
		{"kind missing", func() Spec { s := nwOnceSpec(); s.Kind = ""; return s }, "kind"},
		{"kind unknown", func() Spec { s := nwOnceSpec(); s.Kind = "weekly"; return s }, "kind"},
		{"kind in another case", func() Spec { s := nwOnceSpec(); s.Kind = "ONCE"; return s }, "kind"},
		{"label too long", func() Spec { s := nwOnceSpec(); s.Label = strings.Repeat("a", 201); return s }, "label"},
		{"label too long in characters", func() Spec { s := nwOnceSpec(); s.Label = strings.Repeat("é", 201); return s }, "label"},
		{"label not UTF-8", func() Spec { s := nwOnceSpec(); s.Label = "tea\xff"; return s }, "label"},
		{"label with NUL", func() Spec { s := nwOnceSpec(); s.Label = "tea\x00time"; return s }, "label"},
		{"wake_message not UTF-8", func() Spec { s := nwOnceSpec(); s.WakeMessage = "\xc3"; return s }, "wake_message"},
		{"idempotency_key with NUL", func() Spec { s := nwOnceSpec(); s.IdempotencyKey = "k\x00"; return s }, "idempotency_key"},
		{"conversation_id with NUL", func() Spec { s := nwOnceSpec(); s.ConversationID = "\x00"; return s }, "conversation_id"},
		{"wake message too long", func() Spec { s := nwOnceSpec(); s.WakeMessage = strings.Repeat("m", MaxWakeMessageLen+1); return s }, "wake_message"},
		{"conversation id too long", func() Spec { s := nwOnceSpec(); s.ConversationID = strings.Repeat("c", 201); return s }, "conversation_id"},
		{"idempotency key too long", func() Spec { s := nwOnceSpec(); s.IdempotencyKey = strings.Repeat("k", 201); return s }, "idempotency_key"},
		{"payload over 64 KiB", func() Spec { s := nwOnceSpec(); s.Payload = jsonString(MaxPayloadBytes + 1); return s }, "payload"},
		{"payload not JSON", func() Spec { s := nwOnceSpec(); s.Payload = []byte(`{"a":`); return s }, "payload"},
		{"payload two JSON values", func() Spec { s := nwOnceSpec(); s.Payload = []byte(`1 2`); return s }, "payload"},
		{"payload only whitespace", func() Spec { s := nwOnceSpec(); s.Payload = []byte(`  `); return s }, "payload"},
		{"delivery unknown", func() Spec { s := nwOnceSpec(); s.Delivery = "exactly_once"; return s }, "delivery"},
		{"max_failures negative", func() Spec { s := nwOnceSpec(); s.MaxFailures = -1; return s }, "max_failures"},
		{"max_failures above 100", func() Spec { s := nwOnceSpec(); s.MaxFailures = 101; return s }, "max_failures"},
		{"once with cron_expr", func() Spec { s := nwOnceSpec(); s.CronExpr = "0 9 * * *"; return s }, "cron_expr"},
		{"once with timezone", func() Spec { s := nwOnceSpec(); s.Timezone = "Europe/Paris"; return s }, "timezone"},
		{"once with both fire_at and delay", func() Spec { s := nwOnceSpec(); s.FireAt = nwInstant(nwNow.Add(time.Hour)); return s }, "fire_at"},
		{"once with neither fire_at nor delay", func() Spec { s := nwOnceSpec(); s.Delay = nil; return s }, "fire_at"},
		{"once with negative delay", func() Spec { s := nwOnceSpec(); s.Delay = nwDuration(-time.Second); return s }, "delay_seconds"},
		{"once with delay over ten years", func() Spec { s := nwOnceSpec(); s.Delay = nwDuration(MaxDelay + time.Second); return s }, "delay_seconds"},
		{"once with fire_at over ten years away", func() Spec {
			s := nwOnceSpec()
			s.Delay, s.FireAt = nil, nwInstant(nwNow.Add(MaxDelay+time.Second))
			return s
		}, "fire_at"},
		{"once with fire_at over a day in the past", func() Spec {
			s := nwOnceSpec()
			s.Delay, s.FireAt = nil, nwInstant(nwNow.Add(-25*time.Hour))
			return s
		}, "fire_at"},
		{"cron with fire_at", func() Spec { s := nwCronSpec(); s.FireAt = nwInstant(nwNow.Add(time.Hour)); return s }, "fire_at"},
		{"cron with delay", func() Spec { s := nwCronSpec(); s.Delay = nwDuration(time.Hour); return s }, "delay_seconds"},
		{"cron without expression", func() Spec { s := nwCronSpec(); s.CronExpr = ""; return s }, "cron_expr"},
		{"cron with blank expression", func() Spec { s := nwCronSpec(); s.CronExpr = "   "; return s }, "cron_expr"},
		{"cron expression malformed", func() Spec { s := nwCronSpec(); s.CronExpr = "0 9 * *"; return s }, "cron_expr"},
		{"cron expression out of range", func() Spec { s := nwCronSpec(); s.CronExpr = "0 25 * * *"; return s }, "cron_expr"},
		{"cron expression with seven fields", func() Spec { s := nwCronSpec(); s.CronExpr = "0 0 9 * * * *"; return s }, "cron_expr"},
		{"cron expression that never fires", func() Spec { s := nwCronSpec(); s.CronExpr = "0 0 30 2 *"; return s }, "cron_expr"},
		{"cron expression with a TZ prefix", func() Spec { s := nwCronSpec(); s.CronExpr = "CRON_TZ=UTC 0 9 * * *"; return s }, "cron_expr"},
		{"cron descriptor unknown", func() Spec { s := nwCronSpec(); s.CronExpr = "@fortnightly"; return s }, "cron_expr"},
		{"timezone unknown", func() Spec { s := nwCronSpec(); s.Timezone = "Mars/Olympus_Mons"; return s }, "timezone"},
		{"timezone Local", func() Spec { s := nwCronSpec(); s.Timezone = "Local"; return s }, "timezone"},
		{"timezone as an offset", func() Spec { s := nwCronSpec(); s.Timezone = "+02:00"; return s }, "timezone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAlarm("id-1", tc.spec(), nwNow, nwDefaults)
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("err = %v (%T), want a *ValidationError on %q", err, err, tc.field)
			}
			if verr.Field != tc.field {
				t.Errorf("Field = %q, want %q (error: %v)", verr.Field, tc.field, err)
			}
			if verr.Message == "" {
				t.Error("Message is empty; the client needs to be told what is wrong")
			}
			if a.ID != "" || a.Status != "" {
				t.Errorf("refused input still built an alarm: %+v", a)
			}
		})
	}
}

// jsonString is a JSON string literal of exactly n bytes.
func jsonString(n int) json.RawMessage {
	return json.RawMessage(`"` + strings.Repeat("x", n-2) + `"`)
}

// The limits are inclusive: a value exactly at a limit is accepted.
func TestNewAlarmAcceptsValuesAtTheLimits(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec func() Spec
	}{
		{"label of 200 characters", func() Spec { s := nwOnceSpec(); s.Label = strings.Repeat("é", 200); return s }},
		{"payload of 64 KiB", func() Spec { s := nwOnceSpec(); s.Payload = jsonString(MaxPayloadBytes); return s }},
		{"max_failures 1", func() Spec { s := nwOnceSpec(); s.MaxFailures = 1; return s }},
		{"max_failures 100", func() Spec { s := nwOnceSpec(); s.MaxFailures = 100; return s }},
		{"delay of zero", func() Spec { s := nwOnceSpec(); s.Delay = nwDuration(0); return s }},
		{"delay of ten years", func() Spec { s := nwOnceSpec(); s.Delay = nwDuration(MaxDelay); return s }},
		{"fire_at a day in the past", func() Spec {
			s := nwOnceSpec()
			s.Delay, s.FireAt = nil, nwInstant(nwNow.Add(-24*time.Hour))
			return s
		}},
		{"@every 1s", func() Spec { s := nwCronSpec(); s.CronExpr = "@every 1s"; return s }},
		{"cron that fires once a year", func() Spec { s := nwCronSpec(); s.CronExpr = "0 0 29 2 *"; return s }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewAlarm("id-1", tc.spec(), nwNow, nwDefaults); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}

func TestNewAlarmOnce(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	for _, tc := range []struct {
		name string
		spec func() Spec
		at   time.Time
	}{
		{"delay counts from now", nwOnceSpec, nwNow.Add(10 * time.Minute)},
		{"fire_at in another zone is kept as its instant", func() Spec {
			s := nwOnceSpec()
			s.Delay, s.FireAt = nil, nwInstant(time.Date(2025, 3, 10, 14, 0, 0, 0, paris))
			return s
		}, time.Date(2025, 3, 10, 13, 0, 0, 0, time.UTC)},
		{"fire_at in the past fires at once, like a late timer", func() Spec {
			s := nwOnceSpec()
			s.Delay, s.FireAt = nil, nwInstant(nwNow.Add(-time.Hour))
			return s
		}, nwNow.Add(-time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAlarm("id-1", tc.spec(), nwNow.In(paris), nwDefaults)
			if err != nil {
				t.Fatal(err)
			}
			for name, got := range map[string]time.Time{"FireAt": a.FireAt, "NextFireAt": a.NextFireAt, "ScheduledFor": a.ScheduledFor} {
				if !got.Equal(tc.at) || got.Location() != time.UTC {
					t.Errorf("%s = %s, want %s in UTC", name, got, tc.at)
				}
			}
			if a.CronExpr != "" || a.Timezone != "" {
				t.Errorf("once alarm has cron fields: %q %q", a.CronExpr, a.Timezone)
			}
		})
	}
}

func TestNewAlarmCron(t *testing.T) {
	for _, tc := range []struct {
		name string
		expr string
		now  time.Time
		next time.Time
	}{
		{"daily, later today", "0 9 * * *", nwNow.Add(-4 * time.Hour), time.Date(2025, 3, 10, 9, 0, 0, 0, time.UTC)},
		{"daily, already past today", "0 9 * * *", nwNow, time.Date(2025, 3, 11, 9, 0, 0, 0, time.UTC)},
		{"daily, exactly now goes strictly after", "0 9 * * *", time.Date(2025, 3, 10, 9, 0, 0, 0, time.UTC), time.Date(2025, 3, 11, 9, 0, 0, 0, time.UTC)},
		{"padded expression", "  0 9 * * *\n", nwNow, time.Date(2025, 3, 11, 9, 0, 0, 0, time.UTC)},
		{"@every", "@every 1m", nwNow, nwNow.Add(time.Minute)},
		{"@daily", "@daily", nwNow, time.Date(2025, 3, 11, 0, 0, 0, 0, time.UTC)},
		{"weekdays", "0 9 * * 1-5", time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC), time.Date(2025, 3, 17, 9, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := nwCronSpec()
			s.CronExpr = tc.expr
			a, err := NewAlarm("id-1", s, tc.now, nwDefaults)
			if err != nil {
				t.Fatal(err)
			}
			if !a.NextFireAt.Equal(tc.next) || !a.ScheduledFor.Equal(tc.next) {
				t.Errorf("next %s / scheduled %s, want %s", a.NextFireAt, a.ScheduledFor, tc.next)
			}
			if a.CronExpr != strings.TrimSpace(tc.expr) {
				t.Errorf("CronExpr = %q, want the trimmed expression", a.CronExpr)
			}
			if !a.FireAt.IsZero() {
				t.Errorf("cron alarm has FireAt %s", a.FireAt)
			}
		})
	}
}

func TestNewAlarmDefaults(t *testing.T) {
	for _, spec := range []Spec{nwOnceSpec(), nwCronSpec()} {
		t.Run(string(spec.Kind), func(t *testing.T) {
			a, err := NewAlarm("id-1", spec, nwNow, Defaults{MaxFailures: 7})
			if err != nil {
				t.Fatal(err)
			}
			if a.ID != "id-1" || a.Owner != "alice" || a.Kind != spec.Kind || a.Label != spec.Label {
				t.Errorf("identity not kept: %+v", a)
			}
			if a.Status != StatusActive {
				t.Errorf("Status = %q, want active", a.Status)
			}
			if a.Delivery != AtLeastOnce {
				t.Errorf("Delivery = %q, want at_least_once by default", a.Delivery)
			}
			if a.MaxFailures != 7 {
				t.Errorf("MaxFailures = %d, want the configured default 7", a.MaxFailures)
			}
			if string(a.Payload) != "null" {
				t.Errorf("Payload = %q, want null when none is given", a.Payload)
			}
			if spec.Kind == KindCron && a.Timezone != "UTC" {
				t.Errorf("Timezone = %q, want UTC by default", a.Timezone)
			}
			if !a.CreatedAt.Equal(nwNow) || !a.UpdatedAt.Equal(nwNow) || !a.LastFiredAt.IsZero() {
				t.Errorf("bookkeeping times: created %s updated %s last fired %s", a.CreatedAt, a.UpdatedAt, a.LastFiredAt)
			}
			if a.FailureCount != 0 || a.LastError != "" || a.Claimed() || !a.ClaimedAt.IsZero() {
				t.Errorf("new alarm carries retry or lease state: %+v", a)
			}
		})
	}
}

// A configuration without a max_failures default cannot produce an alarm that would
// fail before its first delivery.
func TestNewAlarmWithoutAnyMaxFailures(t *testing.T) {
	_, err := NewAlarm("id-1", nwOnceSpec(), nwNow, Defaults{})
	var verr *ValidationError
	if !errors.As(err, &verr) || verr.Field != "max_failures" {
		t.Errorf("err = %v, want a *ValidationError on max_failures", err)
	}
}

func TestNewAlarmKeepsWhatWasGiven(t *testing.T) {
	s := nwCronSpec()
	s.Timezone = "Europe/Paris"
	s.Delivery = AtMostOnce
	s.MaxFailures = 3
	s.Payload = json.RawMessage(`{ "b": 2,  "a": [1, 2.50] }`) // kept byte for byte, not re-encoded
	s.ConversationID, s.WakeMessage, s.IdempotencyKey = "conv-9", "stand up!", "key-1"
	a, err := NewAlarm("id-1", s, nwNow, nwDefaults)
	if err != nil {
		t.Fatal(err)
	}
	if a.Timezone != "Europe/Paris" || a.Delivery != AtMostOnce || a.MaxFailures != 3 ||
		string(a.Payload) != string(s.Payload) || a.ConversationID != "conv-9" ||
		a.WakeMessage != "stand up!" || a.IdempotencyKey != "key-1" {
		t.Errorf("spec not kept: %+v", a)
	}
}

// nwStored is a valid row as a store might load it: claimed, with times in a zone other
// than UTC (a driver may hand back local times).
func nwStored() Alarm {
	paris := time.FixedZone("CET", 3600)
	at := time.Date(2025, 3, 10, 10, 0, 0, 0, paris)
	return Alarm{
		ID: "id-1", Owner: "alice", Kind: KindCron, CronExpr: "0 9 * * *", Timezone: "UTC",
		NextFireAt: at, ScheduledFor: at, Status: StatusActive, Delivery: AtLeastOnce,
		MaxFailures: 5, ClaimedBy: "worker-a", ClaimedAt: at.Add(time.Second),
		CreatedAt: at.Add(-time.Hour), UpdatedAt: at, LastFiredAt: at.Add(-24 * time.Hour),
		Payload: json.RawMessage(`null`),
	}
}

func TestRehydrateNormalisesTimesToUTC(t *testing.T) {
	in := nwStored()
	in.FireAt = time.Date(2030, 1, 1, 0, 0, 0, 0, time.FixedZone("", -7*3600)) // long past is fine too
	a, err := Rehydrate(in)
	if err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string][2]time.Time{
		"FireAt":       {a.FireAt, in.FireAt},
		"NextFireAt":   {a.NextFireAt, in.NextFireAt},
		"ScheduledFor": {a.ScheduledFor, in.ScheduledFor},
		"ClaimedAt":    {a.ClaimedAt, in.ClaimedAt},
		"CreatedAt":    {a.CreatedAt, in.CreatedAt},
		"UpdatedAt":    {a.UpdatedAt, in.UpdatedAt},
		"LastFiredAt":  {a.LastFiredAt, in.LastFiredAt},
	} {
		if got, want := pair[0], pair[1]; !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("%s = %s, want %s in UTC", name, got, want)
		}
	}
	// The occurrence key is the same whichever zone the driver used.
	if a.OccurrenceKey() != "id-1/2025-03-10T09:00:00Z" {
		t.Errorf("OccurrenceKey = %q", a.OccurrenceKey())
	}
	// Unset times stay unset, not the zero instant in UTC dressed as a value.
	in = nwStored()
	in.ClaimedBy, in.ClaimedAt, in.LastFiredAt = "", time.Time{}, time.Time{}
	a, err = Rehydrate(in)
	if err != nil {
		t.Fatal(err)
	}
	if !a.ClaimedAt.IsZero() || !a.LastFiredAt.IsZero() || !a.FireAt.IsZero() {
		t.Errorf("unset times became set: %+v", a)
	}
}

func TestRehydrateRejectsCorruptRows(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(*Alarm)
	}{
		{"unknown kind", func(a *Alarm) { a.Kind = "weekly" }},
		{"empty kind", func(a *Alarm) { a.Kind = "" }},
		{"unknown status", func(a *Alarm) { a.Status = "sleeping" }},
		{"empty status", func(a *Alarm) { a.Status = "" }},
		{"unknown delivery", func(a *Alarm) { a.Delivery = "exactly_once" }},
		{"empty delivery", func(a *Alarm) { a.Delivery = "" }},
		{"no id", func(a *Alarm) { a.ID = "" }},
		{"no owner", func(a *Alarm) { a.Owner = "" }},
		{"lease without a time", func(a *Alarm) { a.ClaimedAt = time.Time{} }},
		{"lease time without a worker", func(a *Alarm) { a.ClaimedBy = "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := nwStored()
			tc.corrupt(&in)
			a, err := Rehydrate(in)
			if err == nil {
				t.Fatalf("Rehydrate accepted %+v", in)
			}
			if !strings.HasPrefix(err.Error(), "domain: ") {
				t.Errorf("err = %q, want the package prefix", err)
			}
			var verr *ValidationError
			if errors.As(err, &verr) {
				t.Errorf("err is a *ValidationError (%v); a corrupt row is not bad user input", err)
			}
			if a.ID != "" {
				t.Errorf("rejected row returned as %+v", a)
			}
		})
	}
}
