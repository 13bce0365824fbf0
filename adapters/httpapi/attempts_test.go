package httpapi

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// An attempt's view: the duration in milliseconds to the microsecond, null status and
// response without an HTTP answer, the body as text or base64, hidden when redacted.
func TestAttemptView(t *testing.T) {
	at := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	ev := domain.Event{ID: 9, AlarmID: "a1", Type: domain.EventRetryScheduled, At: at, Attempt: 2, ScheduledFor: at, Worker: "n1",
		Message: "HTTP 503", Receipt: &domain.Receipt{Duration: 1234 * time.Microsecond, Status: 503, ContentType: "text/plain", Body: []byte("busy")}}
	v := newAttemptView(ev, "a1", true)
	if v.DurationMS != 1.234 || v.Status == nil || *v.Status != 503 || v.Error == nil || v.Node != "n1" || v.OccurrenceKey == "" {
		t.Errorf("view = %+v", v)
	}
	if r := v.Response; r == nil || r.Body == nil || *r.Body != "busy" || r.BodyEncoding != "text" || r.Redacted {
		t.Errorf("response = %+v, want the text body", r)
	}
	if r := newAttemptView(ev, "a1", false).Response; r == nil || r.Body != nil || !r.Redacted || r.BodySize != 4 || r.BodySHA256 != sha256Hex([]byte("busy")) {
		t.Errorf("redacted response = %+v", r)
	}
	ev.Receipt = &domain.Receipt{Duration: time.Millisecond, Status: 200, Body: []byte{0xff}}
	if r := newAttemptView(ev, "a1", true).Response; r == nil || r.BodyEncoding != "base64" || r.Body == nil || *r.Body != "/w==" {
		t.Errorf("binary response = %+v, want base64", r)
	}
	ev.Message, ev.Receipt = "webhook: timeout after 10s", &domain.Receipt{Duration: 10 * time.Second}
	if v := newAttemptView(ev, "a1", true); v.Status != nil || v.Response != nil || v.DurationMS != 10000 {
		t.Errorf("transport failure view = %+v, want no status or response", v)
	}
}
