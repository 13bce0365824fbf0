package api_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestCreateOnceWithDelay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	before := time.Now()
	res := e.as(e.alice, "POST", "/v1/alarms", `{"label":"tea","kind":"once","delay_seconds":60}`)
	if res.status != http.StatusCreated {
		t.Fatalf("status %d: %s", res.status, res.body)
	}
	var body struct {
		Alarm   alarmView `json:"alarm"`
		Deduped *bool     `json:"deduped"`
	}
	decodeStrict(t, res, &body)
	a := body.Alarm
	if body.Deduped == nil || *body.Deduped {
		t.Errorf("deduped = %v, want false", body.Deduped)
	}
	if loc := res.header.Get("Location"); loc != "/v1/alarms/"+a.ID {
		t.Errorf("Location = %q, want /v1/alarms/%s", loc, a.ID)
	}
	if a.Label != "tea" || a.Kind != "once" || a.Status != "active" || a.Delivery != "at_least_once" ||
		a.MaxFailures != defaultMaxFailures || a.FailureCount != 0 || a.LastError != "" {
		t.Errorf("alarm = %+v", a)
	}
	if string(a.Payload) != "null" {
		t.Errorf("payload = %s, want null when none was given", a.Payload)
	}
	fireAt := instant(t, a.FireAt)
	near(t, "fire_at", fireAt, before.Add(time.Minute))
	if !instant(t, a.NextFireAt).Equal(fireAt) || !instant(t, a.ScheduledFor).Equal(fireAt) {
		t.Errorf("next_fire_at %v and scheduled_for %v, want both at fire_at %v", *a.NextFireAt, *a.ScheduledFor, fireAt)
	}
	near(t, "created_at", instant(t, a.CreatedAt), before)
	instant(t, a.UpdatedAt)
	if a.LastFiredAt != nil || a.CronExpr != "" || a.Timezone != "" {
		t.Errorf("once alarm has cron or fired fields: %+v", a)
	}

	got := expectAlarm(t, e.as(e.alice, "GET", res.header.Get("Location"), ""))
	if !reflect.DeepEqual(got, a) {
		t.Errorf("GET Location:\n got %+v\nwant %+v", got, a)
	}
}

func TestCreateFractionalDelay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		delay string
		want  time.Duration
	}{{"1.5", 1500 * time.Millisecond}, {"0", 0}, {"0.25", 250 * time.Millisecond}, {"2e1", 20 * time.Second}} {
		a := e.create(e.alice, `{"kind":"once","delay_seconds":`+c.delay+`}`)
		if d := instant(t, a.FireAt).Sub(instant(t, a.CreatedAt)); d != c.want {
			t.Errorf("delay_seconds %s: fire_at - created_at = %s, want %s", c.delay, d, c.want)
		}
	}
}

func TestCreateOnceWithFireAt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	want := time.Now().Add(time.Hour).Truncate(time.Second)
	local := want.In(time.FixedZone("", 2*3600)).Format(time.RFC3339)
	a := e.create(e.alice, `{"kind":"once","fire_at":"`+local+`"}`)
	if got := instant(t, a.FireAt); !got.Equal(want) {
		t.Errorf("fire_at = %s, want %s (given as %s)", got, want, local)
	}
	// A fire_at a little in the past is a late timer: accepted, due at once.
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	e.create(e.alice, `{"kind":"once","fire_at":"`+past+`"}`)
}

func TestCreateCron(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, weekdays)
	if a.Kind != "cron" || a.CronExpr != "0 9 * * 1-5" || a.Timezone != "Europe/Paris" || a.FireAt != nil {
		t.Errorf("alarm = %+v", a)
	}
	next := instant(t, a.NextFireAt)
	paris, _ := time.LoadLocation("Europe/Paris")
	if wall := next.In(paris); wall.Hour() != 9 || wall.Minute() != 0 || !next.After(time.Now()) ||
		wall.Weekday() == time.Saturday || wall.Weekday() == time.Sunday {
		t.Errorf("next_fire_at = %s (%s in Paris), want a future weekday at 09:00", next, wall)
	}
	if u := e.create(e.alice, `{"kind":"cron","cron_expr":"@every 90s"}`); u.Timezone != "UTC" {
		t.Errorf("timezone = %q, want UTC by default", u.Timezone)
	}
}

func TestCreateEchoesEveryField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, `{"label":"<b>stand-up</b> & co","kind":"cron","cron_expr":"@daily",
		"conversation_id":"conv-1","wake_message":"time for stand-up","idempotency_key":"k-1",
		"max_failures":3,"delivery":"at_most_once","payload":{"x":1}}`)
	if a.Label != "<b>stand-up</b> & co" || a.ConversationID != "conv-1" || a.WakeMessage != "time for stand-up" ||
		a.IdempotencyKey != "k-1" || a.MaxFailures != 3 || a.Delivery != "at_most_once" {
		t.Errorf("alarm = %+v", a)
	}
	// The edges of the accepted ranges.
	e.create(e.alice, `{"kind":"once","delay_seconds":1,"max_failures":1}`)
	e.create(e.alice, `{"kind":"once","delay_seconds":1,"max_failures":100}`)
	e.create(e.alice, `{"kind":"once","delay_seconds":1,"label":"`+strings.Repeat("é", 200)+`"}`)
	e.create(e.alice, `{"kind":"once","delay_seconds":1,"max_failures":null,"fire_at":null}`)
}

// The payload comes back exactly as posted, whitespace and number spelling included,
// from every endpoint that shows the alarm.
func TestPayloadByteForByte(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, payload := range []string{
		`{"b": 1,  "a": [1, 2]}`,
		`{"html": "<&>", "unicode": "\u00e9t\u00e9", "n": 3.50, "big": 12345678901234567890}`,
		`[ 1 , 2 ]`,
		`"just a string"`,
		`true`,
		`1.0e2`,
	} {
		body := `{"kind":"once","delay_seconds":60,"payload":` + payload + `}`
		created := e.as(e.alice, "POST", "/v1/alarms", body)
		want := `"payload":` + payload + `,`
		if !strings.Contains(string(created.body), want) {
			t.Fatalf("create answered %s; want it to contain %s", created.body, want)
		}
		a := decodeAlarm(t, created)
		for _, path := range []string{"/v1/alarms/" + a.ID, "/v1/alarms?limit=1"} {
			if res := e.as(e.alice, "GET", path, ""); !strings.Contains(string(res.body), want) {
				t.Errorf("GET %s answered %s; want it to contain %s", path, res.body, want)
			}
		}
		if res := e.act(e.alice, "trigger", a.ID); !strings.Contains(string(res.body), want) {
			t.Errorf("trigger answered %s; want it to contain %s", res.body, want)
		}
	}
}

func TestCreateIdempotent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.create(e.alice, `{"label":"first","kind":"once","delay_seconds":60,"idempotency_key":"order-42"}`)

	res := e.as(e.alice, "POST", "/v1/alarms", `{"label":"second","kind":"once","delay_seconds":5,"idempotency_key":"order-42"}`)
	if res.status != http.StatusOK {
		t.Fatalf("repeat: status %d, want 200: %s", res.status, res.body)
	}
	var body struct {
		Alarm   alarmView `json:"alarm"`
		Deduped *bool     `json:"deduped"`
	}
	decodeStrict(t, res, &body)
	if body.Deduped == nil || !*body.Deduped {
		t.Errorf("deduped = %v, want true", body.Deduped)
	}
	if body.Alarm.ID != first.ID || body.Alarm.Label != "first" {
		t.Errorf("repeat returned %+v, want the first alarm unchanged", body.Alarm)
	}
	if loc := res.header.Get("Location"); loc != "" {
		t.Errorf("deduped reply has Location %q", loc)
	}
	var list struct {
		Alarms     []alarmView `json:"alarms"`
		NextCursor string      `json:"next_cursor"`
	}
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms", ""), &list)
	if len(list.Alarms) != 1 {
		t.Errorf("%d alarms after a deduped create, want 1", len(list.Alarms))
	}
	// Keys are per owner: bob's alarm with the same key is his own.
	if b := e.create(e.bob, `{"kind":"once","delay_seconds":60,"idempotency_key":"order-42"}`); b.ID == first.ID {
		t.Error("bob's create was deduped against alice's alarm")
	}
}

func TestCreateContentTypes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, ct := range []string{"", "application/json", "application/json; charset=utf-8", "Application/JSON"} {
		h := map[string]string{"Authorization": "Bearer " + e.alice}
		if ct != "" {
			h["Content-Type"] = ct
		}
		if res := e.request("POST", "/v1/alarms", onceIn60s, h); res.status != http.StatusCreated {
			t.Errorf("Content-Type %q: status %d: %s", ct, res.status, res.body)
		}
	}
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "application/jsonx", "garbage;;"} {
		h := map[string]string{"Authorization": "Bearer " + e.alice, "Content-Type": ct}
		expectError(t, e.request("POST", "/v1/alarms", onceIn60s, h), http.StatusUnsupportedMediaType, "unsupported_media_type", "")
	}
}
