package api_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

type redeliveryView struct {
	AlarmID       string  `json:"alarm_id"`
	OccurrenceKey string  `json:"occurrence_key"`
	ScheduledFor  string  `json:"scheduled_for"`
	Attempt       int     `json:"attempt"`
	At            string  `json:"at"`
	Delivered     bool    `json:"delivered"`
	Error         *string `json:"error"`
}

// A failed alarm's occurrence is sent again on request, through the node's waker (the
// test server's refuses every wake): the answer says what the receiver did, the history
// records it, the alarm stays failed. What cannot be redelivered is refused by name.
func TestRedeliverOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, `{"kind":"once","delay_seconds":0,"max_failures":1}`)
	e.server.Fail(t, a.ID)

	var got struct {
		Redelivery redeliveryView `json:"redelivery"`
	}
	decodeStrict(t, e.as(e.alice, "POST", "/v1/alarms/"+a.ID+"/redeliver", ""), &got)
	r := got.Redelivery
	if r.AlarmID != a.ID || r.Attempt != 2 || r.Delivered || r.Error == nil || *r.Error == "" {
		t.Errorf("redelivery %+v; want attempt 2, not delivered, with the waker's error", r)
	}
	var again struct {
		Redelivery redeliveryView `json:"redelivery"`
	}
	decodeStrict(t, e.as(e.alice, "POST", "/v1/alarms/"+a.ID+"/redeliver", `{"occurrence_key":"`+r.OccurrenceKey+`"}`), &again)
	if again.Redelivery.Attempt != 3 || again.Redelivery.OccurrenceKey != r.OccurrenceKey {
		t.Errorf("second redelivery %+v; want attempt 3 of the same occurrence", again.Redelivery)
	}
	if after := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID, "")); after.Status != "failed" {
		t.Errorf("the alarm is %s after its redeliveries; want it still failed", after.Status)
	}
	var events struct {
		Events []eventView `json:"events"`
	}
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/events", ""), &events)
	n := 0
	for _, ev := range events.Events {
		if ev.Type == "redelivered" {
			n++
			if ev.OccurrenceKey != r.OccurrenceKey || ev.Message == "" {
				t.Errorf("redelivered event %+v; want the occurrence's key and the waker's error", ev)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d redelivered events, want 2", n)
	}
	var atts struct {
		Attempts []struct {
			Attempt       int    `json:"attempt"`
			OccurrenceKey string `json:"occurrence_key"`
		} `json:"attempts"`
	}
	res := e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/attempts", "")
	if err := json.Unmarshal(res.body, &atts); err != nil || len(atts.Attempts) != 3 || atts.Attempts[0].Attempt != 3 || atts.Attempts[0].OccurrenceKey != r.OccurrenceKey {
		t.Errorf("attempts %s (%v); want the two redeliveries newest first, then the failed delivery", res.body, err)
	}

	later := e.create(e.alice, onceIn60s)
	expectError(t, e.as(e.alice, "POST", "/v1/alarms/"+later.ID+"/redeliver", ""), http.StatusConflict, "invalid_state", "")
	expectError(t, e.as(e.alice, "POST", "/v1/alarms/"+a.ID+"/redeliver", `{"occurrence_key":"`+later.ID+`/2026-01-01T00:00:00Z"}`),
		http.StatusBadRequest, "invalid_argument", "occurrence_key")
	expectError(t, e.as(e.alice, "POST", "/v1/alarms/"+a.ID+"/redeliver", `{"occurrence":"x"}`), http.StatusBadRequest, "invalid_request", "occurrence")
	expectError(t, e.as(e.bob, "POST", "/v1/alarms/"+a.ID+"/redeliver", ""), http.StatusNotFound, "not_found", "")
}

// The owner's dead letters are redelivered in bounded calls; the filter is checked
// member by member.
func TestRedeliverFailedOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for range 2 {
		a := e.create(e.alice, `{"kind":"once","delay_seconds":0,"max_failures":1}`)
		e.server.Fail(t, a.ID)
	}
	e.create(e.alice, onceIn60s) // active: not selected
	var res struct {
		Matched    int     `json:"matched"`
		Delivered  int     `json:"delivered"`
		Failed     int     `json:"failed"`
		HeldBack   int     `json:"held_back"`
		NextCursor *string `json:"next_cursor"`
	}
	decodeStrict(t, e.as(e.alice, "POST", "/v1/alarms/redeliver", `{"limit":1}`), &res)
	if res.Matched != 1 || res.Failed != 1 || res.NextCursor == nil {
		t.Errorf("first call %+v; want one failed alarm sent (and refused), and a cursor", res)
	}
	decodeStrict(t, e.as(e.alice, "POST", "/v1/alarms/redeliver", `{"limit":1,"cursor":"`+*res.NextCursor+`"}`), &res)
	if res.Matched != 1 || res.NextCursor != nil {
		t.Errorf("second call %+v; want the other failed alarm and no cursor", res)
	}
	decodeStrict(t, e.as(e.bob, "POST", "/v1/alarms/redeliver", `{}`), &res)
	if res.Matched != 0 {
		t.Errorf("bob's call matched %d of alice's alarms", res.Matched)
	}
	for body, field := range map[string]string{
		`{"limit":1001}`:                                                "limit",
		`{"filter":{"status":"gone"}}`:                                  "filter.status",
		`{"filter":{"since":"yesterday"}}`:                              "filter.since",
		`{"filter":{"status":"active","since":"2026-01-01T00:00:00Z"}}`: "filter.since",
		`{"filter":{"tag":["nocolon"]}}`:                                "filter.tag",
	} {
		expectError(t, e.as(e.alice, "POST", "/v1/alarms/redeliver", body), http.StatusBadRequest, "invalid_argument", field)
	}
	expectError(t, e.as(e.alice, "POST", "/v1/alarms/redeliver", `{"filter":{"colour":"red"}}`), http.StatusBadRequest, "invalid_request", "filter.colour")
}
