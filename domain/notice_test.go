package domain

import (
	"encoding/json"
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
