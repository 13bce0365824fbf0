package api_test

import (
	"net/http"
	"testing"
	"time"
)

// createdView is a create's answer with what debounce adds.
type createdView struct {
	Alarm    alarmView `json:"alarm"`
	Deduped  *bool     `json:"deduped"`
	Replaced *bool     `json:"replaced"`
}

func (e *env) post(token, body string, status int) createdView {
	e.t.Helper()
	res := e.as(token, "POST", "/v1/alarms", body)
	if res.status != status {
		e.t.Fatalf("POST %s: %d, want %d: %s", body, res.status, status, res.body)
	}
	var v createdView
	decodeStrict(e.t, res, &v)
	return v
}

// A repeat with "on_duplicate": "replace" moves the key's alarm and replaces what it
// carries: 200 with replaced; the first create and plain repeats answer as ever.
func TestCreateReplaceDebounces(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.post(e.alice, `{"kind":"once","delay_seconds":600,"idempotency_key":"conv-1","on_duplicate":"replace",
		"max_wait_seconds":3600,"payload":{"n":1},"label":"one","wake_message":"m1"}`, http.StatusCreated)
	if first.Replaced != nil || first.Deduped == nil || *first.Deduped {
		t.Errorf("first create: deduped %v, replaced %v; want false and absent", first.Deduped, first.Replaced)
	}
	again := e.post(e.alice, `{"kind":"once","delay_seconds":1200,"idempotency_key":"conv-1","on_duplicate":"replace",
		"max_wait_seconds":3600,"payload":{"n":2},"label":"two","wake_message":"m2"}`, http.StatusOK)
	a := again.Alarm
	if again.Replaced == nil || !*again.Replaced || *again.Deduped || a.ID != first.Alarm.ID {
		t.Fatalf("repeat: %+v, want alarm %s replaced", again, first.Alarm.ID)
	}
	if string(a.Payload) != `{"n":2}` || a.Label != "two" || a.WakeMessage != "m2" || a.IdempotencyKey != "conv-1" {
		t.Errorf("replaced alarm: %+v", a)
	}
	if d := instant(t, a.NextFireAt).Sub(instant(t, a.UpdatedAt)); d < 1199*time.Second || d > 1200*time.Second {
		t.Errorf("replaced fire time %s after the repeat, want 20 minutes", d)
	}
	if got := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID, "")); *got.NextFireAt != *a.NextFireAt {
		t.Errorf("GET: next_fire_at %s, want %s", *got.NextFireAt, *a.NextFireAt)
	}
	// The cap counts from the first create, whatever the repeat asks for.
	capped := e.post(e.alice, `{"kind":"once","delay_seconds":86400,"idempotency_key":"conv-1","on_duplicate":"replace",
		"max_wait_seconds":3600}`, http.StatusOK).Alarm
	if d := instant(t, capped.NextFireAt).Sub(instant(t, capped.CreatedAt)); d != time.Hour {
		t.Errorf("capped fire time %s after the first create, want 1h", d)
	}
	plain := e.post(e.alice, `{"kind":"once","delay_seconds":5,"idempotency_key":"conv-1"}`, http.StatusOK)
	if plain.Replaced != nil || !*plain.Deduped || *plain.Alarm.NextFireAt != *capped.NextFireAt {
		t.Errorf("plain repeat: %+v, want the alarm unchanged, deduped", plain)
	}
	var events struct {
		Events []eventView `json:"events"`
	}
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/events", ""), &events)
	if len(events.Events) != 3 || events.Events[1].Type != "replaced" || events.Events[2].Type != "replaced" {
		t.Errorf("history %+v, want created and two replaced", events.Events)
	}
}

// A cancelled alarm of the key is not replaced: the repeat creates the key's next alarm,
// and the old one keeps no key.
func TestCreateReplaceAfterCancelMakesTheNextAlarm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.create(e.alice, `{"kind":"once","delay_seconds":600,"idempotency_key":"k","on_duplicate":"replace"}`)
	if res := e.as(e.alice, "DELETE", "/v1/alarms/"+first.ID, ""); res.status != http.StatusOK {
		t.Fatalf("cancel: %d %s", res.status, res.body)
	}
	next := e.create(e.alice, `{"kind":"once","delay_seconds":60,"idempotency_key":"k","on_duplicate":"replace"}`)
	if next.ID == first.ID || next.IdempotencyKey != "k" || next.Status != "active" {
		t.Errorf("next alarm %+v", next)
	}
	old := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+first.ID, ""))
	if old.Status != "cancelled" || old.IdempotencyKey != "" {
		t.Errorf("the cancelled alarm: %s with key %q, want cancelled without its key", old.Status, old.IdempotencyKey)
	}
}

// on_duplicate and max_wait_seconds are refused by name where they do not apply.
func TestCreateReplaceRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct{ body, field string }{
		{`{"kind":"once","delay_seconds":1,"idempotency_key":"k","on_duplicate":"merge"}`, "on_duplicate"},
		{`{"kind":"once","delay_seconds":1,"on_duplicate":"replace"}`, "on_duplicate"},
		{`{"kind":"cron","cron_expr":"0 9 * * *","idempotency_key":"k","on_duplicate":"replace"}`, "on_duplicate"},
		{`{"kind":"once","delay_seconds":1,"idempotency_key":"k","on_duplicate":"re\u0000place"}`, "on_duplicate"},
		{`{"kind":"once","delay_seconds":1,"idempotency_key":"k","max_wait_seconds":60}`, "max_wait_seconds"},
		{`{"kind":"once","delay_seconds":1,"idempotency_key":"k","on_duplicate":"return","max_wait_seconds":60}`, "max_wait_seconds"},
		{`{"kind":"once","delay_seconds":1,"idempotency_key":"k","on_duplicate":"replace","max_wait_seconds":0}`, "max_wait_seconds"},
		{`{"kind":"once","delay_seconds":1,"idempotency_key":"k","on_duplicate":"replace","max_wait_seconds":-5}`, "max_wait_seconds"},
	} {
		expectError(t, e.as(e.alice, "POST", "/v1/alarms", c.body), http.StatusBadRequest, "invalid_argument", c.field)
	}
	expectError(t, e.as(e.alice, "POST", "/v1/alarms", `{"kind":"once","delay_seconds":1,"idempotency_key":"k",
		"on_duplicate":"replace","max_wait_seconds":"1h"}`), http.StatusBadRequest, "invalid_request", "max_wait_seconds")
}

// In a batch each item settles in turn: the key's second item replaces what the first
// made; a bad item fails alone.
func TestBatchReplace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.as(e.alice, "POST", "/v1/alarms/batch", `{"alarms":[
		{"kind":"once","delay_seconds":60,"idempotency_key":"k","on_duplicate":"replace","payload":1},
		{"kind":"once","delay_seconds":90,"idempotency_key":"k","on_duplicate":"replace","payload":2},
		{"kind":"once","delay_seconds":90,"idempotency_key":"k","on_duplicate":"always"}]}`)
	if res.status != http.StatusOK {
		t.Fatalf("batch: %d %s", res.status, res.body)
	}
	var body struct {
		Results []struct {
			Alarm    *alarmView `json:"alarm"`
			Deduped  *bool      `json:"deduped"`
			Replaced *bool      `json:"replaced"`
			Error    *errorView `json:"error"`
		} `json:"results"`
	}
	decodeStrict(t, res, &body)
	r := body.Results
	if len(r) != 3 || r[0].Alarm == nil || r[0].Replaced != nil || r[1].Alarm == nil || r[1].Replaced == nil || !*r[1].Replaced {
		t.Fatalf("results %s", res.body)
	}
	if r[1].Alarm.ID != r[0].Alarm.ID || string(r[1].Alarm.Payload) != "2" {
		t.Errorf("second item: %+v, want the first's alarm with payload 2", r[1].Alarm)
	}
	if r[2].Error == nil || r[2].Error.Field != "on_duplicate" {
		t.Errorf("third item: %+v, want an error naming on_duplicate", r[2])
	}
}
