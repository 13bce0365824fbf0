package httpapi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

func sampleAlarm() domain.Alarm {
	at := time.Date(2031, 3, 4, 5, 6, 7, 123456789, time.FixedZone("CET", 3600))
	return domain.Alarm{
		ID: "0195f0e4-0000-7000-8000-000000000001", Owner: "alice", Label: "a <b> & c",
		Kind: domain.KindCron, CronExpr: "0 9 * * 1-5", Timezone: "Europe/Paris",
		NextFireAt: at, ScheduledFor: at, Payload: json.RawMessage(`{"b": 1,  "a": [1, 2]}`),
		Status: domain.StatusActive, Delivery: domain.AtLeastOnce, MaxFailures: 5,
		ClaimedBy: "worker-1", ClaimedAt: at, CreatedAt: at, UpdatedAt: at, Endpoint: "billing",
	}
}

func TestAlarmViewPayloadByteForByte(t *testing.T) {
	var buf bytes.Buffer
	if err := appendAlarm(&buf, sampleAlarm()); err != nil {
		t.Fatal(err)
	}
	if want := `"payload":{"b": 1,  "a": [1, 2]},`; !strings.Contains(buf.String(), want) {
		t.Errorf("view %s does not contain %s", buf.String(), want)
	}
	if !json.Valid(buf.Bytes()) {
		t.Errorf("view is not valid JSON: %s", buf.String())
	}
}

func TestAlarmViewFieldsInOrder(t *testing.T) {
	var buf bytes.Buffer
	if err := appendAlarm(&buf, sampleAlarm()); err != nil {
		t.Fatal(err)
	}
	want := []string{"id", "label", "kind", "fire_at", "cron_expr", "timezone", "next_fire_at",
		"scheduled_for", "conversation_id", "wake_message", "payload", "status", "delivery",
		"idempotency_key", "max_failures", "failure_count", "last_error", "created_at",
		"updated_at", "last_fired_at", "endpoint", "tags",
		// A cron alarm's options and series state (a once alarm has none).
		"misfire", "catch_up_limit", "catch_up_window", "max_consecutive_skips", "start_at", "end_at",
		"max_fires", "remaining_fires", "jitter_seconds", "fire_count", "skip_streak", "paused_reason", "paused_until", "backfill_of", "exclude_calendars"}
	dec := json.NewDecoder(&buf)
	_, _ = dec.Token()
	var got []string
	for dec.More() {
		tok, _ := dec.Token()
		got = append(got, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("fields:\n got %v\nwant %v", got, want)
	}
}

func TestAlarmViewValues(t *testing.T) {
	a := sampleAlarm()
	var buf bytes.Buffer
	if err := appendAlarm(&buf, a); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	checks := map[string]any{
		"label":         "a <b> & c",
		"next_fire_at":  "2031-03-04T04:06:07.123456789Z", // UTC, nanoseconds
		"fire_at":       nil,                              // unset
		"last_fired_at": nil,
		"max_failures":  float64(5),
		"endpoint":      "billing",
	}
	for k, want := range checks {
		if v[k] != want {
			t.Errorf("%s = %#v, want %#v", k, v[k], want)
		}
	}
	for _, hidden := range []string{"owner", "claimed_by", "claimed_at"} {
		if _, ok := v[hidden]; ok {
			t.Errorf("view exposes %s", hidden)
		}
	}
	if strings.Contains(buf.String(), `\u003c`) {
		t.Errorf("view HTML-escapes strings: %s", buf.String())
	}
}

func TestAlarmViewNextFireAtOnlyWhenActive(t *testing.T) {
	a := sampleAlarm()
	a.Status = domain.StatusPaused
	var buf bytes.Buffer
	if err := appendAlarm(&buf, a); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"next_fire_at":null`) {
		t.Errorf("paused alarm shows next_fire_at: %s", buf.String())
	}
}

func TestAlarmViewRefusesCorruptPayload(t *testing.T) {
	a := sampleAlarm()
	a.Payload = json.RawMessage(`{"unterminated`)
	if err := appendAlarm(new(bytes.Buffer), a); err == nil {
		t.Error("a corrupt stored payload was copied into the response")
	}
}

// An event's occurrence key is its wake's: the series' id (a backfill's events carry
// its series' keys) and the occurrence.
func TestEventViewOccurrenceKey(t *testing.T) {
	at := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	v := newEventView(domain.Event{ID: 7, AlarmID: "x", Type: domain.EventFired, At: at, Attempt: 2, ScheduledFor: at}, "x")
	if v.OccurrenceKey != "x/2031-03-04T05:06:07Z" {
		t.Errorf("occurrence key = %q", v.OccurrenceKey)
	}
	if v := newEventView(domain.Event{ID: 8, AlarmID: "b", Type: domain.EventFired, At: at, ScheduledFor: at}, "x"); v.OccurrenceKey != "x/2031-03-04T05:06:07Z" {
		t.Errorf("a backfill's event: occurrence key = %q, want its series'", v.OccurrenceKey)
	}
	if v := newEventView(domain.Event{AlarmID: "x", Type: domain.EventCreated, At: at}, "x"); v.OccurrenceKey != "" {
		t.Errorf("event without occurrence has key %q", v.OccurrenceKey)
	}
}
