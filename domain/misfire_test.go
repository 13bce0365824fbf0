package domain

import (
	"strings"
	"testing"
	"time"
)

// series builds a cron alarm created at created, then points it at occurrence s, as a
// series that has been running would be when a node comes back.
func series(t *testing.T, expr, tz string, opts Series, created, s time.Time) Alarm {
	t.Helper()
	a, err := NewAlarm("0195f0c8-series", Spec{Owner: "alice", Kind: KindCron, CronExpr: expr, Timezone: tz, Series: opts},
		created, Defaults{MaxFailures: 3})
	if err != nil {
		t.Fatalf("NewAlarm(%q, %s): %v", expr, tz, err)
	}
	a.ScheduledFor, a.NextFireAt = s, a.dueAt(s)
	return a
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// wakes runs the series from its current occurrence as a dispatcher would at now (no
// time passes while it works: the worst case for catching up), delivering every wake,
// and returns the occurrences woken and the missed events, until the series is due
// after now.
func wakes(t *testing.T, a Alarm, now time.Time, p Policy) (woken []time.Time, missed []Event, end Alarm) {
	t.Helper()
	for i := 0; !a.NextFireAt.After(now) && a.Status == StatusActive; i++ {
		if i > 2000 {
			t.Fatalf("series never caught up: at %s", a.ScheduledFor)
		}
		claimed := fxClaim(a, fxWorker, now)
		f := Begin(claimed, now, p)
		var tr Transition
		if f.Skip != nil {
			tr = *f.Skip
		} else {
			woken = append(woken, claimed.ScheduledFor)
			tr = Decide(f, Delivered(), now, p)
		}
		for _, e := range tr.Events {
			if e.Type == EventMissed {
				missed = append(missed, e)
			}
		}
		a = tr.ApplyTo(claimed)
	}
	return woken, missed, a
}

func TestMisfirePolicies(t *testing.T) {
	berlinSpring := utc("2025-03-29T01:30:00Z") // 02:30 CET, the day before the gap
	tests := []struct {
		name    string
		expr    string
		tz      string
		opts    Series
		s, now  time.Time
		woken   []string // occurrences delivered, in order
		onTime  int      // then this many more, each due within the threshold of now
		missed  []string // one per gap: "count first last"
		next    string   // the series' scheduled_for afterwards
		nextDue string   // its next_fire_at when it differs (jitter)
	}{
		{
			name: "fire_once after downtime: one wake, the rest of the window dropped in one event (Berlin spring forward)",
			expr: "30 2 * * *", tz: "Europe/Berlin", s: berlinSpring, now: utc("2025-04-01T12:00:00Z"),
			// 2025-03-30 02:30 does not exist in Berlin: that day's occurrence is 03:00 CEST (01:00Z).
			woken:  []string{"2025-03-29T01:30:00Z"},
			missed: []string{"3 2025-03-30T01:00:00Z 2025-04-01T00:30:00Z"},
			next:   "2025-04-02T00:30:00Z",
		},
		{
			name: "skip drops every missed occurrence, the claimed one included",
			expr: "30 2 * * *", tz: "Europe/Berlin", opts: Series{Misfire: MisfireSkip}, s: berlinSpring, now: utc("2025-04-01T12:00:00Z"),
			missed: []string{"4 2025-03-29T01:30:00Z 2025-04-01T00:30:00Z"},
			next:   "2025-04-02T00:30:00Z",
		},
		{
			name: "catch_up delivers every missed occurrence oldest first, across the DST gap",
			expr: "30 2 * * *", tz: "Europe/Berlin", opts: Series{Misfire: MisfireCatchUp}, s: berlinSpring, now: utc("2025-04-01T12:00:00Z"),
			woken: []string{"2025-03-29T01:30:00Z", "2025-03-30T01:00:00Z", "2025-03-31T00:30:00Z", "2025-04-01T00:30:00Z"},
			next:  "2025-04-02T00:30:00Z",
		},
		{
			name: "catch_up_limit keeps the newest and records the older ones dropped",
			expr: "30 2 * * *", tz: "Europe/Berlin", opts: Series{Misfire: MisfireCatchUp, CatchUpLimit: 2}, s: berlinSpring, now: utc("2025-04-01T12:00:00Z"),
			woken:  []string{"2025-03-31T00:30:00Z", "2025-04-01T00:30:00Z"},
			missed: []string{"2 2025-03-29T01:30:00Z 2025-03-30T01:00:00Z"},
			next:   "2025-04-02T00:30:00Z",
		},
		{
			name: "catch_up_window drops what is older than the window",
			expr: "30 2 * * *", tz: "Europe/Berlin", opts: Series{Misfire: MisfireCatchUp, CatchUpWindow: 36 * time.Hour}, s: berlinSpring, now: utc("2025-04-01T12:00:00Z"),
			woken:  []string{"2025-03-31T00:30:00Z", "2025-04-01T00:30:00Z"},
			missed: []string{"2 2025-03-29T01:30:00Z 2025-03-30T01:00:00Z"},
			next:   "2025-04-02T00:30:00Z",
		},
		{
			name: "skip over New York's fall back: a named hour fires once on the long day",
			expr: "30 1 * * *", tz: "America/New_York", opts: Series{Misfire: MisfireSkip},
			s: utc("2025-11-01T05:30:00Z"), now: utc("2025-11-03T12:00:00Z"),
			missed: []string{"3 2025-11-01T05:30:00Z 2025-11-03T06:30:00Z"},
			next:   "2025-11-04T06:30:00Z",
		},
		{
			name: "catch_up over New York's fall back: a wildcard hour fires in both copies of 01:xx",
			expr: "30 * * * *", tz: "America/New_York", opts: Series{Misfire: MisfireCatchUp},
			s: utc("2025-11-02T04:30:00Z"), now: utc("2025-11-02T07:45:00Z"),
			woken: []string{"2025-11-02T04:30:00Z", "2025-11-02T05:30:00Z", "2025-11-02T06:30:00Z", "2025-11-02T07:30:00Z"},
			next:  "2025-11-02T08:30:00Z",
		},
		{
			name: "month ends: the 31st skips the months without one",
			expr: "0 0 31 * *", tz: "UTC", s: utc("2025-01-31T00:00:00Z"), now: utc("2025-04-15T00:00:00Z"),
			woken:  []string{"2025-01-31T00:00:00Z"},
			missed: []string{"1 2025-03-31T00:00:00Z 2025-03-31T00:00:00Z"},
			next:   "2025-05-31T00:00:00Z",
		},
		{
			name: "leap days: skip drops both missed 29ths of February",
			expr: "0 12 29 2 *", tz: "UTC", opts: Series{Misfire: MisfireSkip}, s: utc("2024-02-29T12:00:00Z"), now: utc("2028-03-01T00:00:00Z"),
			missed: []string{"2 2024-02-29T12:00:00Z 2028-02-29T12:00:00Z"},
			next:   "2032-02-29T12:00:00Z",
		},
		{
			name: "an occurrence late by less than the threshold is not missed, under any policy",
			expr: "*/5 * * * *", tz: "UTC", opts: Series{Misfire: MisfireSkip}, s: utc("2025-06-01T10:00:00Z"), now: utc("2025-06-01T10:00:45Z"),
			woken: []string{"2025-06-01T10:00:00Z"},
			next:  "2025-06-01T10:05:00Z",
		},
		{
			name: "@every skip a month down: counted by arithmetic, phase kept",
			expr: "@every 1s", tz: "UTC", opts: Series{Misfire: MisfireSkip}, s: utc("2025-06-01T00:00:00Z"), now: utc("2025-07-01T00:00:00Z"),
			missed: []string{"2591940 2025-06-01T00:00:00Z 2025-06-30T23:58:59Z"},
			onTime: 61, // 23:59:00 (exactly the threshold late: not missed) to 00:00:00
			next:   "2025-07-01T00:00:01Z",
		},
		{
			name: "@every catch_up ten minutes down: the newest catch_up_limit",
			expr: "@every 1s", tz: "UTC", opts: Series{Misfire: MisfireCatchUp, CatchUpLimit: 3}, s: utc("2025-06-01T00:00:00Z"), now: utc("2025-06-01T00:10:00Z"),
			woken:  []string{"2025-06-01T00:08:57Z", "2025-06-01T00:08:58Z", "2025-06-01T00:08:59Z"},
			onTime: 61,
			missed: []string{"537 2025-06-01T00:00:00Z 2025-06-01T00:08:56Z"},
			next:   "2025-06-01T00:10:01Z",
		},
		{
			name: "end_at during the downtime ends the series as fired",
			expr: "0 9 * * *", tz: "UTC", opts: Series{Misfire: MisfireSkip, EndAt: utc("2025-06-03T12:00:00Z")},
			s: utc("2025-06-01T09:00:00Z"), now: utc("2025-06-10T00:00:00Z"),
			missed: []string{"3 2025-06-01T09:00:00Z 2025-06-03T09:00:00Z"},
			next:   "2025-06-01T09:00:00Z", // the row keeps its last occurrence; the status says it ended
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			created := tc.s.Add(-time.Hour)
			a := series(t, tc.expr, tc.tz, tc.opts, created, tc.s)
			woken, missed, end := wakes(t, a, tc.now, Policy{})
			if len(woken) != len(tc.woken)+tc.onTime {
				t.Errorf("%d wakes, want %d", len(woken), len(tc.woken)+tc.onTime)
			}
			assertTimes(t, "woken", woken[:min(len(woken), len(tc.woken))], tc.woken)
			var gaps []string
			for _, e := range missed {
				gaps = append(gaps, gapOf(t, e))
			}
			if strings.Join(gaps, "|") != strings.Join(tc.missed, "|") {
				t.Errorf("missed events = %q, want %q", gaps, tc.missed)
			}
			if got := end.ScheduledFor.Format(time.RFC3339); got != tc.next {
				t.Errorf("scheduled_for afterwards = %s, want %s", got, tc.next)
			}
			if strings.HasPrefix(tc.name, "end_at") != (end.Status == StatusFired) {
				t.Errorf("status afterwards = %s", end.Status)
			}
		})
	}
}

// gapOf reads "count first last" back out of a missed event, checking the event names
// its first occurrence.
func gapOf(t *testing.T, e Event) string {
	t.Helper()
	// "3 occurrences dropped, 2025-...Z to 2025-...Z (misfire skip)"
	f := strings.Fields(strings.NewReplacer(",", "", "(", "", ")", "").Replace(e.Message))
	if len(f) < 6 || f[4] != "to" {
		t.Fatalf("missed event message %q", e.Message)
	}
	if e.ScheduledFor.Format(time.RFC3339) != f[3] {
		t.Errorf("missed event's scheduled_for %s, want its first dropped %s", e.ScheduledFor, f[3])
	}
	return f[0] + " " + f[3] + " " + f[5]
}

func assertTimes(t *testing.T, what string, got []time.Time, want []string) {
	t.Helper()
	var g []string
	for _, x := range got {
		g = append(g, x.UTC().Format(time.RFC3339))
	}
	if strings.Join(g, " ") != strings.Join(want, " ") {
		t.Errorf("%s = %v, want %v", what, g, want)
	}
}

func TestMisfireThresholdIsThePolicys(t *testing.T) {
	a := series(t, "*/5 * * * *", "UTC", Series{Misfire: MisfireSkip}, utc("2025-06-01T09:00:00Z"), utc("2025-06-01T10:00:00Z"))
	now := utc("2025-06-01T10:00:45Z")
	if f := Begin(fxClaim(a, fxWorker, now), now, Policy{MisfireThreshold: 30 * time.Second}); f.Skip == nil {
		t.Fatal("45 s late with a 30 s threshold: want the occurrence skipped")
	}
	if f := Begin(fxClaim(a, fxWorker, now), now, Policy{MisfireThreshold: time.Minute}); f.Skip != nil {
		t.Fatal("45 s late with a 1 m threshold: want it delivered")
	}
}

func TestRetriesAreNeverMisfires(t *testing.T) {
	a := series(t, "*/5 * * * *", "UTC", Series{Misfire: MisfireSkip}, utc("2025-06-01T09:00:00Z"), utc("2025-06-01T10:00:00Z"))
	a.FailureCount = 2
	now := utc("2025-06-01T10:30:00Z")
	if f := Begin(fxClaim(a, fxWorker, now), now, Policy{}); f.Skip != nil {
		t.Fatal("a retry due when its backoff said was treated as a missed occurrence")
	}
}

func TestCalendarGapBeyondTheWalkBudgetIsALowerBound(t *testing.T) {
	a := series(t, "* * * * *", "UTC", Series{Misfire: MisfireSkip}, utc("2025-01-01T00:00:00Z"), utc("2025-01-01T00:00:00Z"))
	now := utc("2025-04-11T00:00:00Z") // 100 days: 144,000 minutes
	start := time.Now()
	_, missed, end := wakes(t, a, now, Policy{})
	if time.Since(start) > 10*time.Second {
		t.Errorf("the walk took %s", time.Since(start))
	}
	if len(missed) != 1 || !strings.HasPrefix(missed[0].Message, "at least 100000 occurrences") {
		t.Fatalf("missed = %+v, want one event counting at least 100000", missed)
	}
	// 23:59 is exactly the threshold late and 00:00 on time: both delivered.
	if got, want := end.ScheduledFor, utc("2025-04-11T00:01:00Z"); !got.Equal(want) {
		t.Errorf("next = %s, want %s", got, want)
	}
}

func TestBreakerPausesAfterConsecutiveSkips(t *testing.T) {
	a := series(t, "0 9 * * *", "UTC", Series{MaxConsecutiveSkips: 2}, utc("2025-06-01T08:00:00Z"), utc("2025-06-01T09:00:00Z"))
	exhaust := func(a Alarm, now time.Time) Transition {
		a.FailureCount = a.MaxFailures - 1
		return Decide(Begin(fxClaim(a, fxWorker, now), now, Policy{}), DeliveryFailed("HTTP 500"), now, Policy{})
	}
	day1 := utc("2025-06-01T09:10:00Z")
	t1 := exhaust(a, day1)
	a = t1.ApplyTo(a)
	if a.Status != StatusActive || a.SkipStreak != 1 {
		t.Fatalf("after one skip: status %s streak %d", a.Status, a.SkipStreak)
	}
	// A delivery in between resets the streak.
	day2 := utc("2025-06-02T09:00:05Z")
	a = Decide(Begin(fxClaim(a, fxWorker, day2), day2, Policy{}), Delivered(), day2, Policy{}).ApplyTo(a)
	if a.SkipStreak != 0 {
		t.Fatalf("a delivery left the streak at %d", a.SkipStreak)
	}
	a = exhaust(a, utc("2025-06-03T09:10:00Z")).ApplyTo(a)
	t4 := exhaust(a, utc("2025-06-04T09:10:00Z"))
	a = t4.ApplyTo(a)
	if a.Status != StatusPaused || a.SkipStreak != 2 {
		t.Fatalf("after two skips in a row: status %s streak %d, want paused 2", a.Status, a.SkipStreak)
	}
	if !strings.Contains(a.PausedReason, "series breaker") || !strings.Contains(a.PausedReason, "HTTP 500") {
		t.Errorf("paused_reason = %q", a.PausedReason)
	}
	if n := len(t4.Events); n != 2 || t4.Events[0].Type != EventSkipped || t4.Events[1].Type != EventPaused {
		t.Errorf("events = %+v, want skipped then paused", t4.Events)
	}
	// Resuming starts a new streak.
	r, _, err := Resume(a, utc("2025-06-05T12:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	a = r.ApplyTo(a)
	if a.SkipStreak != 0 || a.PausedReason != "" || a.Status != StatusActive {
		t.Errorf("resumed: %+v", a)
	}
}

func TestPauseUntilAndNote(t *testing.T) {
	a := series(t, "0 9 * * *", "UTC", Series{}, utc("2025-06-01T08:00:00Z"), utc("2025-06-01T09:00:00Z"))
	now := utc("2025-06-01T08:30:00Z")
	if _, _, err := PauseWith(a, now, PauseSpec{Until: now.Add(-time.Second)}); fieldOf(err) != "until" {
		t.Errorf("until in the past: err %v, want a refusal naming until", err)
	}
	if _, _, err := PauseWith(a, now, PauseSpec{Note: strings.Repeat("x", MaxPauseNoteLen+1)}); fieldOf(err) != "note" {
		t.Errorf("long note: err %v, want a refusal naming note", err)
	}
	until := utc("2025-06-04T00:00:00Z")
	tr, changed, err := PauseWith(a, now, PauseSpec{Until: until, Note: "maintenance window"})
	if err != nil || !changed {
		t.Fatalf("PauseWith: %v %v", changed, err)
	}
	p := tr.ApplyTo(a)
	if p.Status != StatusPaused || p.PausedReason != "maintenance window" || !p.PausedUntil.Equal(until) {
		t.Fatalf("paused: %+v", p)
	}
	if !strings.Contains(tr.Events[0].Message, "maintenance window; until 2025-06-04T00:00:00Z") {
		t.Errorf("paused event message %q", tr.Events[0].Message)
	}
	if _, changed, _ := PauseWith(p, now, PauseSpec{Until: until, Note: "maintenance window"}); changed {
		t.Error("pausing again with the same note and end changed something")
	}
	if _, changed := ResumeDue(p, until.Add(-time.Second)); changed {
		t.Error("ResumeDue before until resumed the series")
	}
	r, changed := ResumeDue(p, until.Add(time.Second))
	if !changed {
		t.Fatal("ResumeDue after until did nothing")
	}
	got := r.ApplyTo(p)
	if got.Status != StatusActive || !got.ScheduledFor.Equal(utc("2025-06-04T09:00:00Z")) || got.PausedReason != "" || !got.PausedUntil.IsZero() {
		t.Errorf("resumed at its end: %+v", got)
	}
	if r.Events[0].Type != EventResumed || !strings.HasPrefix(r.Events[0].Message, "pause ended") {
		t.Errorf("event %+v", r.Events[0])
	}
	// Without an end, nothing resumes it.
	plain, _, _ := Pause(a, now)
	if _, changed := ResumeDue(plain.ApplyTo(a), now.Add(24*time.Hour)); changed {
		t.Error("ResumeDue resumed a pause without an end")
	}
	// An end past the series' last occurrence ends it as fired rather than leaving it
	// due forever.
	ended := series(t, "0 9 * * *", "UTC", Series{EndAt: utc("2025-06-02T12:00:00Z")}, utc("2025-06-01T08:00:00Z"), utc("2025-06-01T09:00:00Z"))
	tr, _, _ = PauseWith(ended, now, PauseSpec{Until: utc("2025-06-05T00:00:00Z")})
	r, changed = ResumeDue(tr.ApplyTo(ended), utc("2025-06-05T00:00:01Z"))
	if !changed || r.Status != StatusFired {
		t.Errorf("ResumeDue past end_at: changed %v status %s, want fired", changed, r.Status)
	}
}

func fieldOf(err error) string {
	if v, ok := err.(*ValidationError); ok {
		return v.Field
	}
	return ""
}

func TestSkipNext(t *testing.T) {
	a := series(t, "0 9 * * *", "UTC", Series{EndAt: utc("2025-06-02T12:00:00Z")}, utc("2025-06-01T08:00:00Z"), utc("2025-06-01T09:00:00Z"))
	now := utc("2025-06-01T08:30:00Z")
	tr, err := SkipNext(a, now)
	if err != nil {
		t.Fatal(err)
	}
	a = tr.ApplyTo(a)
	if !a.ScheduledFor.Equal(utc("2025-06-02T09:00:00Z")) || a.Status != StatusActive {
		t.Fatalf("after skip: %s %s", a.Status, a.ScheduledFor)
	}
	if e := tr.Events[0]; e.Type != EventSkipped || !e.ScheduledFor.Equal(utc("2025-06-01T09:00:00Z")) || e.Message != "skipped by the owner" {
		t.Errorf("event %+v", e)
	}
	tr, _ = SkipNext(a, now)
	if tr.ApplyTo(a).Status != StatusFired {
		t.Error("skipping the last occurrence before end_at did not end the series")
	}
	once := fxOnce(t)
	if _, err := SkipNext(once, now); err == nil {
		t.Error("SkipNext accepted a once alarm")
	}
}

func TestBoundsAndMaxFires(t *testing.T) {
	created := utc("2025-06-01T08:00:00Z")
	a := series(t, "0 9 * * *", "UTC", Series{StartAt: utc("2025-06-10T00:00:00Z"), MaxFires: 2}, created, time.Time{})
	first, err := NewAlarm(a.ID, Spec{Owner: "alice", Kind: KindCron, CronExpr: "0 9 * * *", Series: a.Series}, created, Defaults{MaxFailures: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !first.ScheduledFor.Equal(utc("2025-06-10T09:00:00Z")) {
		t.Fatalf("first occurrence %s, want the first at or after start_at", first.ScheduledFor)
	}
	if n, ok := first.RemainingFires(); !ok || n != 2 {
		t.Errorf("remaining %d %v, want 2", n, ok)
	}
	now := first.NextFireAt.Add(time.Second)
	second := Decide(Begin(fxClaim(first, fxWorker, now), now, Policy{}), Delivered(), now, Policy{}).ApplyTo(first)
	if second.Status != StatusActive || second.FireCount != 1 {
		t.Fatalf("after one fire: %s %d", second.Status, second.FireCount)
	}
	now = second.NextFireAt.Add(time.Second)
	last := Decide(Begin(fxClaim(second, fxWorker, now), now, Policy{}), Delivered(), now, Policy{}).ApplyTo(second)
	if last.Status != StatusFired || last.FireCount != 2 {
		t.Fatalf("after max_fires: %s %d, want fired 2", last.Status, last.FireCount)
	}
	if n, _ := last.RemainingFires(); n != 0 {
		t.Errorf("remaining after the last = %d", n)
	}

	// "@every" starts at start_at itself.
	every, err := NewAlarm("x", Spec{Owner: "alice", Kind: KindCron, CronExpr: "@every 1h", Series: Series{StartAt: utc("2025-06-10T00:00:00Z")}}, created, Defaults{MaxFailures: 3})
	if err != nil || !every.ScheduledFor.Equal(utc("2025-06-10T00:00:00Z")) {
		t.Errorf("@every with start_at: %s %v", every.ScheduledFor, err)
	}
}

func TestSeriesValidation(t *testing.T) {
	created := utc("2025-06-01T08:00:00Z")
	cases := []struct {
		name  string
		spec  Spec
		field string
	}{
		{"options on a once alarm", Spec{Kind: KindOnce, Delay: new(time.Duration), Series: Series{MaxFires: 3}}, "max_fires"},
		{"unknown misfire", Spec{Kind: KindCron, CronExpr: "@daily", Series: Series{Misfire: "later"}}, "misfire"},
		{"catch_up_limit without catch_up", Spec{Kind: KindCron, CronExpr: "@daily", Series: Series{CatchUpLimit: 5}}, "catch_up_limit"},
		{"catch_up_window without catch_up", Spec{Kind: KindCron, CronExpr: "@daily", Series: Series{CatchUpWindow: time.Hour}}, "catch_up_window"},
		{"catch_up_limit too big", Spec{Kind: KindCron, CronExpr: "@daily", Series: Series{Misfire: MisfireCatchUp, CatchUpLimit: 1001}}, "catch_up_limit"},
		{"jitter too big", Spec{Kind: KindCron, CronExpr: "@daily", Series: Series{JitterSeconds: 3601}}, "jitter_seconds"},
		{"negative max_fires", Spec{Kind: KindCron, CronExpr: "@daily", Series: Series{MaxFires: -1}}, "max_fires"},
		{"negative breaker", Spec{Kind: KindCron, CronExpr: "@daily", Series: Series{MaxConsecutiveSkips: -1}}, "max_consecutive_skips"},
		{"end before start", Spec{Kind: KindCron, CronExpr: "@daily", Series: Series{StartAt: created.Add(48 * time.Hour), EndAt: created.Add(24 * time.Hour)}}, "end_at"},
		{"end before the first occurrence", Spec{Kind: KindCron, CronExpr: "0 9 * * *", Series: Series{EndAt: created.Add(time.Minute)}}, "end_at"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Owner = "alice"
			_, err := NewAlarm("x", tc.spec, created, Defaults{MaxFailures: 3})
			if fieldOf(err) != tc.field {
				t.Errorf("err = %v, want a refusal naming %s", err, tc.field)
			}
		})
	}
}

func TestJitterIsDeterministicAndKeepsTheOccurrence(t *testing.T) {
	opts := Series{JitterSeconds: 600}
	a := series(t, "0 9 * * *", "UTC", opts, utc("2025-06-01T08:00:00Z"), utc("2025-06-01T09:00:00Z"))
	seen := map[time.Duration]bool{}
	o := a.ScheduledFor
	for i := 0; i < 50; i++ {
		j := Jitter(opts, a.ID, o)
		if j < 0 || j >= 600*time.Second {
			t.Fatalf("jitter %s outside [0, 600s)", j)
		}
		if j != Jitter(opts, a.ID, o) {
			t.Fatal("jitter differs for the same occurrence key")
		}
		seen[j] = true
		o = o.Add(24 * time.Hour)
	}
	if len(seen) < 40 {
		t.Errorf("50 occurrences drew only %d distinct delays", len(seen))
	}
	if !a.NextFireAt.Equal(a.ScheduledFor.Add(Jitter(opts, a.ID, a.ScheduledFor))) {
		t.Errorf("next_fire_at %s is not scheduled_for %s plus its jitter", a.NextFireAt, a.ScheduledFor)
	}
	// The next occurrence is jittered too; scheduled_for (the occurrence key) is not.
	now := a.NextFireAt.Add(time.Second)
	next := Decide(Begin(fxClaim(a, fxWorker, now), now, Policy{}), Delivered(), now, Policy{}).ApplyTo(a)
	if !next.ScheduledFor.Equal(utc("2025-06-02T09:00:00Z")) || !next.NextFireAt.Equal(next.ScheduledFor.Add(Jitter(opts, a.ID, next.ScheduledFor))) {
		t.Errorf("next occurrence %s due %s", next.ScheduledFor, next.NextFireAt)
	}
	// A retry is due when its backoff says, not jittered again.
	retry := Decide(Begin(fxClaim(a, fxWorker, now), now, Policy{}), DeliveryFailed("x"), now, Policy{Backoff: DefaultBackoff}).ApplyTo(a)
	if !retry.NextFireAt.Equal(now.Add(DefaultBackoff.Delay(0))) || !retry.ScheduledFor.Equal(a.ScheduledFor) {
		t.Errorf("retry due %s for %s", retry.NextFireAt, retry.ScheduledFor)
	}
}

func TestUpcoming(t *testing.T) {
	a := series(t, "0 9 * * *", "Europe/Berlin", Series{MaxFires: 5}, utc("2025-03-28T08:00:00Z"), utc("2025-03-29T08:00:00Z"))
	a.FireCount = 2
	now := utc("2025-03-29T07:00:00Z")
	got := Upcoming(a, now, 10)
	var times []time.Time
	for _, o := range got {
		times = append(times, o.ScheduledFor)
	}
	// Three fires left; Berlin moves to summer time on the 30th, so 09:00 is 07:00Z from then.
	assertTimes(t, "upcoming", times, []string{"2025-03-29T08:00:00Z", "2025-03-30T07:00:00Z", "2025-03-31T07:00:00Z"})

	p, _, _ := PauseWith(a, now, PauseSpec{Until: utc("2025-04-05T00:00:00Z")})
	times = nil
	for _, o := range Upcoming(p.ApplyTo(a), now, 2) {
		times = append(times, o.ScheduledFor)
	}
	assertTimes(t, "upcoming of a series paused until the 5th", times, []string{"2025-04-05T07:00:00Z", "2025-04-06T07:00:00Z"})

	plain, _, _ := Pause(a, now)
	if n := len(Upcoming(plain.ApplyTo(a), now, 5)); n != 0 {
		t.Errorf("a series paused without an end has %d upcoming", n)
	}
}

func TestPreview(t *testing.T) {
	got, err := Preview("0 9 * * 1-5", "America/New_York", utc("2025-03-07T00:00:00Z"), 3)
	if err != nil {
		t.Fatal(err)
	}
	// Friday the 7th, then Monday the 10th after the spring-forward Sunday.
	assertTimes(t, "preview", got, []string{"2025-03-07T14:00:00Z", "2025-03-10T13:00:00Z", "2025-03-11T13:00:00Z"})
	for _, tc := range []struct {
		expr, tz string
		n        int
		field    string
	}{
		{"0 9 * * *", "Mars/Olympus", 3, "timezone"},
		{"61 * * * *", "UTC", 3, "cron_expr"},
		{"0 9 * * *", "UTC", 101, "count"},
		{"0 9 * * *", "UTC", 0, "count"},
	} {
		if _, err := Preview(tc.expr, tc.tz, utc("2025-03-07T00:00:00Z"), tc.n); fieldOf(err) != tc.field {
			t.Errorf("Preview(%q, %q, %d): err %v, want a refusal naming %s", tc.expr, tc.tz, tc.n, err, tc.field)
		}
	}
}

// A node that stops between a wake and its outcome: the occurrence was delivered on
// time, so the window missed after it still gets its one wake (fire_once), the next
// occurrence, claimed late; the rest of the window is dropped after that wake.
func TestFireOnceWindowAfterAnOnTimeWakeRecordedLate(t *testing.T) {
	s := utc("2025-06-01T10:00:00Z")
	a := series(t, "@every 1s", "UTC", Series{}, s.Add(-time.Second), s)
	onTime := s.Add(100 * time.Millisecond)
	f := Begin(fxClaim(a, fxWorker, onTime), onTime, Policy{})
	recordedAt := s.Add(10 * time.Second) // frozen meanwhile
	a = Decide(f, Delivered(), recordedAt, Policy{}).ApplyTo(a)
	if want := s.Add(time.Second); !a.ScheduledFor.Equal(want) {
		t.Fatalf("after an on-time wake recorded late: next %s, want %s (the window's wake)", a.ScheduledFor, want)
	}
	woken, missed, _ := wakes(t, a, recordedAt, Policy{})
	if len(woken) == 0 || !woken[0].Equal(s.Add(time.Second)) {
		t.Fatalf("woken %v, want the window's first occurrence first", woken)
	}
	if len(missed) != 0 {
		t.Errorf("missed %v: ten seconds late is within the 1m threshold, nothing is missed", missed)
	}
	// With a threshold of 2 s the window is 10:00:01..10:00:07: one wake, six dropped.
	a2 := series(t, "@every 1s", "UTC", Series{}, s.Add(-time.Second), s)
	p := Policy{MisfireThreshold: 2 * time.Second}
	a2 = Decide(Begin(fxClaim(a2, fxWorker, onTime), onTime, p), Delivered(), recordedAt, p).ApplyTo(a2)
	woken, missed, _ = wakes(t, a2, recordedAt, p)
	assertTimes(t, "woken", woken[:1], []string{"2025-06-01T10:00:01Z"})
	if len(missed) != 1 || gapOf(t, missed[0]) != "6 2025-06-01T10:00:02Z 2025-06-01T10:00:07Z" {
		t.Errorf("missed %v", missed)
	}
}
