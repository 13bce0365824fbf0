package domain

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestFailureNotices(t *testing.T) {
	p := Policy{Backoff: DefaultBackoff}
	withEndpoint := func(a Alarm) Alarm { a.Endpoint = "billing"; return a }

	once := fxClaim(withEndpoint(withFailures(4, "HTTP 503")(fxOnce(t))), fxWorker, fxClaimedAt)
	tr := Decide(Begin(once, fxNow, p), DeliveryFailed("HTTP 500"), fxNow, p)
	n := tr.Notice
	if n == nil {
		t.Fatal("a once alarm with an endpoint failed for good: no notice")
	}
	var body struct {
		Type  string `json:"type"`
		Alarm struct {
			ID            string `json:"id"`
			Status        string `json:"status"`
			LastError     string `json:"last_error"`
			Endpoint      string `json:"endpoint"`
			OccurrenceKey string `json:"occurrence_key"`
		} `json:"alarm"`
	}
	if err := json.Unmarshal(n.Payload, &body); err != nil {
		t.Fatal(err)
	}
	if body.Type != NoticeFailed || body.Alarm.ID != once.ID || body.Alarm.Status != "failed" || body.Alarm.LastError != "HTTP 500" ||
		body.Alarm.Endpoint != "billing" || body.Alarm.OccurrenceKey != once.OccurrenceKey() {
		t.Errorf("notice body %s", n.Payload)
	}
	if n.Kind != KindOnce || n.Endpoint != "billing" || n.Series.Notice != NoticeFailed || n.Owner != once.Owner ||
		!n.NextFireAt.Equal(fxNow) || n.MaxFailures != NoticeMaxFailures || n.ID == once.ID {
		t.Errorf("notice alarm %+v", n)
	}
	if again := Decide(Begin(once, fxNow, p), DeliveryFailed("HTTP 500"), fxNow, p); again.Notice.ID != n.ID {
		t.Error("the same transition decided again names another notice")
	}

	series := fxClaim(withEndpoint(fxCron(t, func(s *Spec) { s.Series.MaxConsecutiveSkips = 1 })), fxWorker, fxClaimedAt)
	series.FailureCount = series.MaxFailures - 1
	if tr := Decide(Begin(series, fxNow, p), DeliveryFailed("HTTP 500"), fxNow, p); tr.Notice == nil || tr.Notice.Series.Notice != NoticePaused {
		t.Errorf("a series the breaker paused: notice %+v", tr.Notice)
	}

	for name, a := range map[string]Alarm{
		"no endpoint":          fxClaim(withFailures(4, "x")(fxOnce(t)), fxWorker, fxClaimedAt),
		"a notice that failed": func() Alarm { b := *n; b.FailureCount = b.MaxFailures - 1; return fxClaim(b, fxWorker, fxClaimedAt) }(),
	} {
		if tr := Decide(Begin(a, fxNow, p), DeliveryFailed("x"), fxNow, p); tr.Notice != nil {
			t.Errorf("%s: a notice %+v", name, tr.Notice)
		}
	}
	if tr := Decide(Begin(fxClaim(withEndpoint(fxOnce(t)), fxWorker, fxClaimedAt), fxNow, p), DeliveryFailed("x"), fxNow, p); tr.Notice != nil {
		t.Error("a retry sent a notice")
	}
}

// A notice is the server's: its owner cannot change its body, its max_failures or when
// it is sent, nor create an alarm that passes for one; it can cancel it, and an operator
// can still retry or trigger it as it was made.
func TestNoticesAreTheServers(t *testing.T) {
	p := Policy{Backoff: DefaultBackoff}
	failed := fxOnce(t)
	failed.Endpoint = "billing"
	failed = fxClaim(withFailures(4, "HTTP 503")(failed), fxWorker, fxClaimedAt)
	n := *Decide(Begin(failed, fxNow, p), DeliveryFailed("HTTP 500"), fxNow, p).Notice

	forged := json.RawMessage(`{"type":"alarm.failed","alarm":{"owner":"someone-else"}}`)
	for name, patch := range map[string]Patch{
		"payload":      {Payload: &forged},
		"max_failures": {MaxFailures: ptr(MaxMaxFailures)},
		"label":        {Label: ptr("renamed")},
	} {
		if _, _, err := Update(n, patch, fxNow); !errors.Is(err, ErrInvalidState) {
			t.Errorf("update of a notice's %s: %v, want ErrInvalidState", name, err)
		}
	}
	if _, err := Trigger(n, fxNow); !errors.Is(err, ErrInvalidState) {
		t.Errorf("owner trigger of a notice: %v, want ErrInvalidState", err)
	}
	delivered := []Event{{ID: 1, AlarmID: n.ID, Type: EventFired, ScheduledFor: n.ScheduledFor, Attempt: 1}}
	if _, _, err := RedeliveryTarget(n, delivered, ""); !errors.Is(err, ErrInvalidState) {
		t.Errorf("redelivery of a delivered notice: %v, want ErrInvalidState", err)
	}
	if _, changed := Cancel(n, fxNow); !changed {
		t.Error("the owner cannot cancel a notice")
	}
	if tr, err := AdminTrigger(n, fxNow, "tok_admin"); err != nil || tr.Define != nil {
		t.Errorf("admin trigger of a notice: %+v, %v", tr, err)
	}
	if _, err := NewAlarm("forged", Spec{Owner: "o", Kind: KindOnce, Endpoint: "billing", Series: Series{Notice: NoticeFailed}}, fxNow, Defaults{MaxFailures: 3}); !isField(err, "notice") {
		t.Errorf("a create carrying notice: %v, want a refusal naming notice", err)
	}
}

func isField(err error, field string) bool {
	var ve *ValidationError
	return errors.As(err, &ve) && ve.Field == field
}
