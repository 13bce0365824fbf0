package domain

import (
	"errors"
	"testing"
	"time"
)

func TestBackfillDeliversThePastWindowOldestFirstWithTheSeriesKeys(t *testing.T) {
	s := series(t, "0 9 * * *", "Europe/Berlin", Series{Misfire: MisfireSkip}, utc("2025-03-01T08:00:00Z"), utc("2025-04-02T07:00:00Z"))
	s.Endpoint = "billing"
	now := utc("2025-04-01T12:00:00Z")
	// 09:00 Berlin from the 28th (CET, 08:00Z) across the spring-forward Sunday (CEST, 07:00Z).
	b, n, err := Backfill(s, "b1", utc("2025-03-28T00:00:00Z"), utc("2025-03-31T23:00:00Z"), now)
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 || b.Series.BackfillOf != s.ID || b.Owner != s.Owner || b.IdempotencyKey == "" {
		t.Fatalf("backfill %+v, %d occurrences", b, n)
	}
	woken, missed, end := wakes(t, b, now, Policy{})
	assertTimes(t, "backfilled", woken, []string{"2025-03-28T08:00:00Z", "2025-03-29T08:00:00Z", "2025-03-30T07:00:00Z", "2025-03-31T07:00:00Z"})
	if len(missed) != 0 || end.Status != StatusFired {
		t.Errorf("missed %v, status %s: want none missed and the backfill done", missed, end.Status)
	}
	w := NewWake(fxClaim(b, fxWorker, now), now)
	if w.AlarmID != s.ID || w.OccurrenceKey != s.ID+"/2025-03-28T08:00:00Z" {
		t.Errorf("wake names %s / %s; want the series' id and key", w.AlarmID, w.OccurrenceKey)
	}
	if b.Endpoint != s.Endpoint || w.Endpoint != s.Endpoint {
		t.Errorf("backfill names endpoint %q, its wake %q; want the series' %q", b.Endpoint, w.Endpoint, s.Endpoint)
	}
}

func TestBackfillKeepsTheNewestCatchUpLimit(t *testing.T) {
	s := series(t, "@every 1m", "UTC", Series{Misfire: MisfireCatchUp, CatchUpLimit: 3}, utc("2025-06-01T00:00:00Z"), utc("2025-06-01T12:00:00Z"))
	now := utc("2025-06-01T12:00:00Z")
	b, n, err := Backfill(s, "b1", utc("2025-06-01T10:00:00Z"), utc("2025-06-01T10:09:00Z"), now)
	if err != nil || n != 4 {
		t.Fatalf("n %d err %v, want 4 (the limit + 1: truncated)", n, err)
	}
	woken, missed, _ := wakes(t, b, now, Policy{})
	assertTimes(t, "backfilled", woken, []string{"2025-06-01T10:07:00Z", "2025-06-01T10:08:00Z", "2025-06-01T10:09:00Z"})
	if len(missed) != 1 || gapOf(t, missed[0]) != "7 2025-06-01T10:00:00Z 2025-06-01T10:06:00Z" {
		t.Errorf("missed %v", missed)
	}
}

func TestBackfillRefusals(t *testing.T) {
	s := series(t, "0 9 * * *", "UTC", Series{}, utc("2025-06-01T08:00:00Z"), utc("2025-06-02T09:00:00Z"))
	now := utc("2025-06-10T12:00:00Z")
	for _, tc := range []struct {
		name     string
		from, to time.Time
		field    string
	}{
		{"no from", time.Time{}, now, "from"},
		{"to before from", utc("2025-06-05T00:00:00Z"), utc("2025-06-04T00:00:00Z"), "to"},
		{"to in the future", utc("2025-06-05T00:00:00Z"), now.Add(time.Hour), "to"},
		{"a window without an occurrence", utc("2025-06-05T10:00:00Z"), utc("2025-06-05T11:00:00Z"), "from"},
	} {
		if _, _, err := Backfill(s, "b", tc.from, tc.to, now); fieldOf(err) != tc.field {
			t.Errorf("%s: err %v, want a refusal naming %s", tc.name, err, tc.field)
		}
	}
	if _, _, err := Backfill(fxOnce(t), "b", utc("2025-06-05T00:00:00Z"), now, now); !errors.Is(err, ErrInvalidState) {
		t.Errorf("backfilling a once alarm: %v", err)
	}
}
