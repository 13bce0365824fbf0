package domain

import (
	"reflect"
	"testing"
	"time"
)

// TestDecidePutsTheReceiptOnTheAttemptsEvent: whatever the outcome leads to, the
// attempt's own event carries what the receiver answered, and no other event does (the
// attempt log reads the events that carry one).
func TestDecidePutsTheReceiptOnTheAttemptsEvent(t *testing.T) {
	receipt := Receipt{Duration: 42 * time.Millisecond, Status: 503, ContentType: "text/plain", Body: []byte("busy")}
	withReceipt := func(o Outcome) Outcome { o.Receipt = &receipt; return o }
	tests := []struct {
		name    string
		alarm   Alarm
		outcome Outcome
		want    EventType
	}{
		{"once delivered", fxOnce(t), Delivered(), EventFired},
		{"once retried", fxOnce(t), DeliveryFailed("HTTP 503"), EventRetryScheduled},
		{"once failed", fxOnce(t, withMaxFailures(1)), DeliveryFailed("HTTP 503"), EventFailed},
		{"cron delivered", fxCron(t), Delivered(), EventFired},
		{"cron skipped", fxCron(t, withMaxFailures(1)), DeliveryFailed("HTTP 503"), EventSkipped},
		{"at-most-once delivered", fxOnce(t, withDelivery(AtMostOnce)), Delivered(), EventAttemptDelivered},
		{"at-most-once failed", fxCron(t, withDelivery(AtMostOnce)), DeliveryFailed("HTTP 503"), EventAttemptFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Begin(fxClaim(tc.alarm, fxWorker, fxClaimedAt), fxNow, Policy{})
			tr := Decide(f, withReceipt(tc.outcome), fxNow, Policy{})
			if len(tr.Events) == 0 || tr.Events[0].Type != tc.want {
				t.Fatalf("events = %+v, want %s first", tr.Events, tc.want)
			}
			if got := tr.Events[0].Receipt; got == nil || !reflect.DeepEqual(*got, receipt) {
				t.Errorf("the %s event's receipt = %+v, want %+v", tc.want, got, receipt)
			}
			for _, e := range tr.Events[1:] {
				if e.IsAttempt() {
					t.Errorf("the %s event after the attempt's carries a receipt", e.Type)
				}
			}
		})
	}
	t.Run("deferred is no attempt", func(t *testing.T) {
		f := Begin(fxClaim(fxOnce(t, withDelivery(AtMostOnce)), fxWorker, fxClaimedAt), fxNow, Policy{})
		tr := Decide(f, withReceipt(Deferred(time.Second, "endpoint busy")), fxNow, Policy{})
		for _, e := range tr.Events {
			if e.IsAttempt() {
				t.Errorf("the %s event of a deferred wake carries a receipt", e.Type)
			}
		}
	})
}

func TestReceiptKept(t *testing.T) {
	r := Receipt{Body: []byte("0123456789")}
	if got := r.Kept(4); string(got.Body) != "0123" || !got.Truncated {
		t.Errorf("Kept(4) = %q truncated %v, want 0123 truncated", got.Body, got.Truncated)
	}
	if got := r.Kept(10); string(got.Body) != "0123456789" || got.Truncated {
		t.Errorf("Kept(10) = %q truncated %v, want it whole", got.Body, got.Truncated)
	}
	if got := r.Kept(0); got.Body != nil || !got.Truncated {
		t.Errorf("Kept(0) = %q truncated %v, want no body, truncated", got.Body, got.Truncated)
	}
	if got := (Receipt{ContentType: "text/plain\x00\xff"}).Kept(10); got.ContentType != "text/plain\ufffd\ufffd" {
		t.Errorf("Kept content type = %q, want it printable", got.ContentType)
	}
}
