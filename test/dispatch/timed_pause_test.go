package dispatch_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// A series paused with an end resumes by itself at that end, with no request and no
// timer in memory: the dispatcher finds the ended pause in the store within a tick and
// resumes it; the series then fires on its schedule again. A pause without an end stays.
func TestTimedPauseResumesByItself(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	r := newReceiver(t, func(int64, wake) int { return 200 })
	e.start(t, e.waker(t, r), testConfig("w1"))

	timed := e.create(t, domain.Spec{Kind: domain.KindCron, CronExpr: "@every 1s"})
	forever := e.create(t, domain.Spec{Kind: domain.KindCron, CronExpr: "@every 1s"})
	until := e.clock.Now().Add(1500 * time.Millisecond)
	if _, err := e.alarms.PauseWith(ctx, "alice", timed.ID, domain.PauseSpec{Until: until, Note: "deploy"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.alarms.Pause(ctx, "alice", forever.ID); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the timed pause resumed", func() bool {
		return e.get(t, timed.ID).Status == domain.StatusActive
	})
	resumedAt := e.clock.Now()
	if resumedAt.Before(until) {
		t.Errorf("resumed at %s, before its end %s", resumedAt, until)
	}
	got := e.get(t, timed.ID)
	if got.PausedReason != "" || !got.PausedUntil.IsZero() {
		t.Errorf("the resumed series keeps its pause: reason %q until %s", got.PausedReason, got.PausedUntil)
	}
	evs := e.events(t, timed.ID)
	last := evs[len(evs)-1]
	if last.Type != domain.EventResumed || !strings.HasPrefix(last.Message, "pause ended") {
		t.Errorf("last event %+v, want resumed: pause ended", last)
	}
	eventually(t, 5*time.Second, "the resumed series fired again", func() bool {
		for _, w := range r.received() {
			if w.AlarmID == timed.ID && w.ScheduledFor.After(until) {
				return true
			}
		}
		return false
	})
	if st := e.get(t, forever.ID).Status; st != domain.StatusPaused {
		t.Errorf("a pause without an end ended: %s", st)
	}
}

// A backfill delivers the series' past occurrences in order, each once, with the
// series' id and occurrence keys, then ends; the series' own schedule does not move.
func TestBackfillDeliversInOrder(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	r := newReceiver(t, func(int64, wake) int { return 200 })
	e.start(t, e.waker(t, r), testConfig("w1"))

	s := e.create(t, domain.Spec{Kind: domain.KindCron, CronExpr: "0 9 * * *"})
	day := e.clock.Now().UTC().Truncate(24 * time.Hour)
	b, n, _, err := e.alarms.Backfill(ctx, "alice", s.ID, day.Add(-6*24*time.Hour), day.Add(-time.Hour))
	if err != nil || n != 6 {
		t.Fatalf("Backfill: %d occurrences, %v", n, err)
	}
	eventually(t, 5*time.Second, "the backfill done", func() bool { return e.get(t, b.ID).Status == domain.StatusFired })
	var keys []string
	for _, w := range r.received() {
		if w.AlarmID != s.ID {
			t.Errorf("a backfill wake names alarm %s, want the series %s", w.AlarmID, s.ID)
		}
		keys = append(keys, w.OccurrenceKey)
	}
	var want []string
	for d := 6; d >= 1; d-- {
		want = append(want, domain.OccurrenceKey(s.ID, day.Add(-time.Duration(d)*24*time.Hour+9*time.Hour)))
	}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Errorf("wakes %v\nwant %v (in order, once each)", keys, want)
	}
	if got := e.get(t, s.ID); !got.ScheduledFor.Equal(s.ScheduledFor) {
		t.Errorf("the series moved to %s", got.ScheduledFor)
	}
}
