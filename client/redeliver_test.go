package client_test

import (
	"testing"

	"github.com/chronoshq/chronos/client"
)

// Redeliver and RedeliverFailed reach the server's routes and read their answers; the
// test server's waker refuses every wake, so each redelivery is recorded as refused.
func TestRedeliver(t *testing.T) {
	t.Parallel()
	s, ctx := newRealServer(t), t.Context()
	a, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{MaxFailures: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.alice.Redeliver(ctx, a.ID, ""); !client.IsInvalidState(err) {
		t.Errorf("an alarm never delivered: %v", err)
	}
	s.fail(t, a.ID)
	r, err := s.alice.Redeliver(ctx, a.ID, "")
	if err != nil || r.AlarmID != a.ID || r.Attempt != 2 || r.Delivered || r.Error == nil {
		t.Fatalf("Redeliver: %+v, %v", r, err)
	}
	if again, err := s.alice.Redeliver(ctx, a.ID, r.OccurrenceKey); err != nil || again.Attempt != 3 {
		t.Errorf("Redeliver by key: %+v, %v", again, err)
	}
	if _, err := s.alice.Redeliver(ctx, a.ID, a.ID+"/not-a-time"); !client.IsInvalid(err) {
		t.Errorf("a bad key: %v", err)
	}
	if _, err := s.bob.Redeliver(ctx, a.ID, ""); !client.IsNotFound(err) {
		t.Errorf("another owner's alarm: %v", err)
	}
	res, err := s.alice.RedeliverFailed(ctx, client.RedeliverFailed{Limit: 10})
	if err != nil || res.Matched != 1 || res.Failed != 1 || res.NextCursor != nil {
		t.Errorf("RedeliverFailed: %+v, %v", res, err)
	}
	if _, err := s.alice.RedeliverFailed(ctx, client.RedeliverFailed{Limit: 5000}); !client.IsInvalid(err) {
		t.Errorf("a limit over the maximum: %v", err)
	}
}
