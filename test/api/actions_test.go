package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func (e *env) act(token, action, id string) response {
	e.t.Helper()
	if action == "cancel" {
		return e.as(token, "DELETE", "/v1/alarms/"+id, "")
	}
	return e.as(token, "POST", "/v1/alarms/"+id+"/"+action, "")
}

func TestCronLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, weekdays)

	p := expectAlarm(t, e.act(e.alice, "pause", a.ID))
	if p.Status != "paused" || p.NextFireAt != nil {
		t.Errorf("paused alarm: status %s next_fire_at %v; want paused with no next_fire_at", p.Status, p.NextFireAt)
	}
	if again := expectAlarm(t, e.act(e.alice, "pause", a.ID)); again.Status != "paused" || *again.UpdatedAt != *p.UpdatedAt {
		t.Errorf("pausing a paused alarm changed it: %+v", again)
	}
	expectError(t, e.act(e.alice, "trigger", a.ID), http.StatusConflict, "invalid_state", "")

	r := expectAlarm(t, e.act(e.alice, "resume", a.ID))
	if r.Status != "active" || !instant(t, r.NextFireAt).After(time.Now()) {
		t.Errorf("resumed alarm: %+v; want active with a future next_fire_at", r)
	}
	if again := expectAlarm(t, e.act(e.alice, "resume", a.ID)); again.Status != "active" || *again.UpdatedAt != *r.UpdatedAt {
		t.Errorf("resuming an active alarm changed it: %+v", again)
	}

	before := time.Now()
	tr := expectAlarm(t, e.act(e.alice, "trigger", a.ID))
	next := instant(t, tr.NextFireAt)
	near(t, "next_fire_at after trigger", next, before)
	if !instant(t, tr.ScheduledFor).Equal(next) || tr.Status != "active" {
		t.Errorf("triggered cron alarm: %+v; want active with a new occurrence at next_fire_at", tr)
	}

	c := expectAlarm(t, e.act(e.alice, "cancel", a.ID))
	if c.Status != "cancelled" || c.NextFireAt != nil {
		t.Errorf("cancelled alarm: %+v", c)
	}
	if again := expectAlarm(t, e.act(e.alice, "cancel", a.ID)); again.Status != "cancelled" || *again.UpdatedAt != *c.UpdatedAt {
		t.Errorf("cancelling twice changed the alarm: %+v", again)
	}
	for _, action := range []string{"pause", "resume", "trigger"} {
		expectError(t, e.act(e.alice, action, a.ID), http.StatusConflict, "invalid_state", "")
	}

	// The history, oldest first, as owner actions: no worker, no attempt.
	var events struct {
		Events []eventView `json:"events"`
	}
	res := e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/events", "")
	if res.status != http.StatusOK {
		t.Fatalf("events: %d %s", res.status, res.body)
	}
	decodeStrict(t, res, &events)
	var types []string
	for i, ev := range events.Events {
		types = append(types, ev.Type)
		if i > 0 && ev.ID <= events.Events[i-1].ID {
			t.Errorf("event ids not increasing: %d after %d", ev.ID, events.Events[i-1].ID)
		}
		instant(t, ev.At)
		if ev.Worker != "" || ev.Attempt != 0 {
			t.Errorf("owner event %s names worker %q attempt %d", ev.Type, ev.Worker, ev.Attempt)
		}
		if ev.ScheduledFor != nil {
			want := a.ID + "/" + instant(t, ev.ScheduledFor).Format(time.RFC3339)
			if ev.OccurrenceKey != want {
				t.Errorf("%s: occurrence_key %q, want %q", ev.Type, ev.OccurrenceKey, want)
			}
		} else if ev.OccurrenceKey != "" {
			t.Errorf("%s: occurrence_key %q without scheduled_for", ev.Type, ev.OccurrenceKey)
		}
	}
	if want := []string{"created", "paused", "resumed", "triggered", "cancelled"}; !slices.Equal(types, want) {
		t.Errorf("event types %v, want %v", types, want)
	}
	if tev := events.Events[3]; tev.ScheduledFor == nil || *tev.ScheduledFor != *tr.ScheduledFor {
		t.Errorf("triggered event concerns %v, want the new occurrence %s", tev.ScheduledFor, *tr.ScheduledFor)
	}

	var two struct {
		Events []eventView `json:"events"`
	}
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/events?limit=2", ""), &two)
	if len(two.Events) != 2 || two.Events[0].Type != "created" || two.Events[1].Type != "paused" {
		t.Errorf("events?limit=2 = %+v; want the two oldest", two.Events)
	}
}

func TestOnceActions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, onceIn60s)

	res := expectError(t, e.act(e.alice, "pause", a.ID), http.StatusConflict, "invalid_state", "")
	if !strings.Contains(res.Message, "cron") {
		t.Errorf("pausing a once alarm: message %q does not say why", res.Message)
	}
	if r := expectAlarm(t, e.act(e.alice, "resume", a.ID)); r.Status != "active" || *r.UpdatedAt != *a.UpdatedAt {
		t.Errorf("resuming an active once alarm changed it: %+v", r)
	}

	before := time.Now()
	tr := expectAlarm(t, e.act(e.alice, "trigger", a.ID))
	near(t, "next_fire_at after trigger", instant(t, tr.NextFireAt), before)
	if *tr.ScheduledFor != *a.ScheduledFor || *tr.FireAt != *a.FireAt {
		t.Errorf("triggering a once alarm moved its occurrence: %+v", tr)
	}

	expectAlarm(t, e.act(e.alice, "cancel", a.ID))
	expectError(t, e.act(e.alice, "trigger", a.ID), http.StatusConflict, "invalid_state", "")
}

func TestEventsRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, onceIn60s)
	for _, q := range []string{"?limit=0", "?limit=1001", "?limit=x", "?limit=-5"} {
		expectError(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/events"+q, ""), http.StatusBadRequest, "invalid_argument", "limit")
	}
	var events struct {
		Events []eventView `json:"events"`
	}
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/events?limit=1000", ""), &events)
	if len(events.Events) != 1 || events.Events[0].Type != "created" {
		t.Errorf("events = %+v; want the one created event", events.Events)
	}
}
