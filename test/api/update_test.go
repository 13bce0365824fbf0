package api_test

import (
	"net/http"
	"testing"
	"time"
)

func TestUpdateInPlace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, `{"kind":"cron","cron_expr":"0 9 * * *","timezone":"UTC","label":"standup","payload":{"v":1}}`)
	path := "/v1/alarms/" + a.ID

	// A label and payload change keeps the occurrence.
	u := expectAlarm(t, e.as(e.alice, "PATCH", path, `{"label":"daily standup","payload":{"v":2}}`))
	if u.Label != "daily standup" || string(u.Payload) != `{"v":2}` || *u.ScheduledFor != *a.ScheduledFor {
		t.Errorf("after a label and payload change: %+v", u)
	}
	// A new schedule moves it to its first occurrence after now.
	before := time.Now().UTC()
	m := expectAlarm(t, e.as(e.alice, "PATCH", path, `{"cron_expr":"*/5 * * * *","max_fires":3,"end_at":null}`))
	next := instant(t, m.ScheduledFor)
	if m.CronExpr != "*/5 * * * *" || !next.After(before) || next.Sub(before) > 5*time.Minute || next.Minute()%5 != 0 {
		t.Errorf("after a new expression: %s next %s", m.CronExpr, next)
	}
	if *m.MaxFires != 3 || *m.RemainingFires != 3 {
		t.Errorf("max_fires %v remaining %v", *m.MaxFires, *m.RemainingFires)
	}
	var events struct {
		Events []eventView `json:"events"`
	}
	decodeStrict(t, e.as(e.alice, "GET", path+"/events", ""), &events)
	var changes []string
	for _, ev := range events.Events {
		if ev.Type == "updated" {
			changes = append(changes, ev.Message)
		}
	}
	if len(changes) != 2 || changes[0] != "changed: label, payload" || changes[1] != "changed: cron_expr, max_fires" {
		t.Errorf("updated events %q", changes)
	}
	// Nothing different: the alarm as it is.
	if same := expectAlarm(t, e.as(e.alice, "PATCH", path, `{"label":"daily standup"}`)); *same.UpdatedAt != *m.UpdatedAt {
		t.Errorf("a patch changing nothing changed updated_at: %s, was %s", *same.UpdatedAt, *m.UpdatedAt)
	}

	for _, tc := range []struct{ body, code, field string }{
		{`{"kind":"once"}`, "invalid_argument", "kind"},
		{`{"delivery":"at_most_once"}`, "invalid_argument", "delivery"},
		{`{"idempotency_key":"k"}`, "invalid_argument", "idempotency_key"},
		{`{"timezone":"Mars/Olympus"}`, "invalid_argument", "timezone"},
		{`{"cron_expr":"61 * * * *"}`, "invalid_argument", "cron_expr"},
		{`{"max_failures":0}`, "invalid_argument", "max_failures"},
		{`{"max_failures":"3"}`, "invalid_request", "max_failures"},
		{`{"end_at":"tomorrow"}`, "invalid_argument", "end_at"},
		{`{"colour":"red"}`, "invalid_request", "colour"},
	} {
		expectError(t, e.as(e.alice, "PATCH", path, tc.body), http.StatusBadRequest, tc.code, tc.field)
	}
	expectError(t, e.as(e.bob, "PATCH", path, `{"label":"mine"}`), http.StatusNotFound, "not_found", "")

	once := e.create(e.alice, `{"kind":"once","delay_seconds":60}`)
	expectError(t, e.as(e.alice, "PATCH", "/v1/alarms/"+once.ID, `{"cron_expr":"@daily"}`), http.StatusBadRequest, "invalid_argument", "cron_expr")
	if o := expectAlarm(t, e.as(e.alice, "PATCH", "/v1/alarms/"+once.ID, `{"wake_message":"hello"}`)); o.WakeMessage != "hello" {
		t.Errorf("once alarm's wake_message: %q", o.WakeMessage)
	}
	expectAlarm(t, e.act(e.alice, "cancel", once.ID))
	expectError(t, e.as(e.alice, "PATCH", "/v1/alarms/"+once.ID, `{"label":"x"}`), http.StatusConflict, "invalid_state", "")
}
