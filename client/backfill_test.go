package client_test

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/client"
)

// Backfill creates a backfill of the series' past window and answers it again, deduped,
// for the same window; a window in the future is the API's invalid_argument.
func TestClientBackfill(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	series, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{CronExpr: "*/10 * * * *"})
	if err != nil {
		t.Fatal(err)
	}
	to := time.Now().Add(-time.Minute)
	from := to.Add(-time.Hour)
	b, err := s.alice.Backfill(ctx, series.ID, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if b.Deduped || b.Alarm.BackfillOf != series.ID || b.Alarm.ID == series.ID || b.Occurrences < 5 || b.Occurrences > 6 || b.Truncated {
		t.Errorf("backfill = %+v, want a new alarm of the series delivering 5 or 6 occurrences", b)
	}
	again, err := s.alice.Backfill(ctx, series.ID, from, to)
	if err != nil || !again.Deduped || again.Alarm.ID != b.Alarm.ID {
		t.Errorf("the same window again = %+v, %v; want the first backfill, deduped", again, err)
	}
	if _, err := s.alice.Backfill(ctx, series.ID, from, time.Now().Add(time.Hour)); !client.IsInvalid(err) {
		t.Errorf("a window ending in the future: %v, want invalid", err)
	}
	if _, err := s.bob.Backfill(ctx, series.ID, from, to); !client.IsNotFound(err) {
		t.Errorf("another owner's series: %v, want not found", err)
	}
}
