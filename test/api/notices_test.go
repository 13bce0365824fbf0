package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// failWithNotice creates alice's once alarm naming her billing endpoint (which has a
// failure_url), fails its one delivery as a dispatcher would, and returns the failure
// notice that made.
func (e *env) failWithNotice() alarmView {
	e.t.Helper()
	e.createBilling()
	a := e.create(e.alice, `{"kind":"once","delay_seconds":0,"max_failures":1,"label":"invoice","endpoint":"billing"}`)
	c, err := e.store.ClaimDue(e.ctx, ports.ClaimParams{Worker: "api-test", Lease: time.Minute, Batch: 10})
	if err != nil || len(c.Alarms) != 1 {
		e.t.Fatalf("claiming %s: %v %d alarms", a.ID, err, len(c.Alarms))
	}
	tr := domain.Decide(domain.Begin(c.Alarms[0], c.Now, domain.Policy{}), domain.DeliveryFailed("HTTP 503"), c.Now, domain.Policy{Backoff: domain.DefaultBackoff})
	if tr.Notice == nil {
		e.t.Fatal("the failure made no notice")
	}
	if r, err := e.store.Apply(e.ctx, []domain.Transition{tr}); err != nil || r.Applied != 1 {
		e.t.Fatalf("failing %s: %v %+v", a.ID, err, r)
	}
	return expectAlarm(e.t, e.as(e.alice, "GET", "/v1/alarms/"+tr.Notice.ID, ""))
}

// A failure notice is the server's (issue 25, M1): its owner cannot change what it
// sends (its payload is the signed body), how often (max_failures) or when (trigger):
// each is a 409 invalid_state, and the notice is as it was. The owner can cancel it.
func TestOwnerCannotRewriteANotice(t *testing.T) {
	e := newEnv(t)
	n := e.failWithNotice()
	if !strings.HasPrefix(n.Label, "notice: ") || n.MaxFailures != domain.NoticeMaxFailures {
		t.Fatalf("the notice: %+v", n)
	}
	for _, body := range []string{
		`{"payload":{"type":"alarm.failed","alarm":{"owner":"bob","id":"forged"}}}`,
		`{"max_failures":1000}`,
		`{"label":"x"}`,
	} {
		res := expectError(t, e.as(e.alice, "PATCH", "/v1/alarms/"+n.ID, body), http.StatusConflict, "invalid_state", "")
		if !strings.Contains(res.Message, "failure notice") {
			t.Errorf("PATCH %s: the refusal %q does not say why", body, res.Message)
		}
	}
	expectError(t, e.act(e.alice, "trigger", n.ID), http.StatusConflict, "invalid_state", "")
	after := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+n.ID, ""))
	if string(after.Payload) != string(n.Payload) || after.MaxFailures != n.MaxFailures || after.Label != n.Label {
		t.Errorf("after refused changes the notice is %+v, want %+v", after, n)
	}

	if res := e.act(e.alice, "cancel", n.ID); res.status != http.StatusOK {
		t.Errorf("owner cancel of a notice: %d %s", res.status, res.body)
	}
}

// A notice is sent as the server made it, at most its own max_failures times: its
// owner cannot have it sent again, freshly signed, by redelivery. The refusal is a 409
// saying why, and records nothing.
func TestOwnerCannotRedeliverANotice(t *testing.T) {
	e := newEnv(t)
	n := e.failWithNotice()
	e.server.Fail(t, "") // the notice is delivered: now it could be sent again
	before := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+n.ID, ""))
	if before.Status != "fired" {
		t.Fatalf("the notice is %s, want fired", before.Status)
	}
	for _, body := range []string{"", `{"occurrence_key":"` + n.ID + `/` + (*before.ScheduledFor)[:19] + `Z"}`} {
		res := expectError(t, e.as(e.alice, "POST", "/v1/alarms/"+n.ID+"/redeliver", body), http.StatusConflict, "invalid_state", "")
		if !strings.Contains(res.Message, "failure notice") || !strings.Contains(res.Message, "redeliver") {
			t.Errorf("redeliver %s: the refusal %q does not say why", body, res.Message)
		}
	}
	var events struct {
		Events []eventView `json:"events"`
	}
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms/"+n.ID+"/events", ""), &events)
	for _, ev := range events.Events {
		if ev.Type == "redelivered" {
			t.Errorf("a refused redelivery was recorded: %+v", ev)
		}
	}
}
