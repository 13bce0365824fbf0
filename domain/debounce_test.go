package domain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func dbSpec(delay time.Duration) Spec {
	s := nwOnceSpec()
	s.IdempotencyKey, s.OnDuplicate, s.Delay = "chat-42", OnDuplicateReplace, nwDuration(delay)
	return s
}

// on_duplicate and max_wait_seconds are refused by name wherever they do not apply.
func TestDebounceRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spec  func() Spec
		field string
	}{
		{"unknown on_duplicate", func() Spec { s := dbSpec(time.Minute); s.OnDuplicate = "update"; return s }, "on_duplicate"},
		{"on_duplicate in another case", func() Spec { s := dbSpec(time.Minute); s.OnDuplicate = "Replace"; return s }, "on_duplicate"},
		{"replace without a key", func() Spec { s := dbSpec(time.Minute); s.IdempotencyKey = ""; return s }, "on_duplicate"},
		{"replace on a series", func() Spec {
			s := nwCronSpec()
			s.IdempotencyKey, s.OnDuplicate = "k", OnDuplicateReplace
			return s
		}, "on_duplicate"},
		{"max wait without replace", func() Spec { s := dbSpec(time.Minute); s.OnDuplicate = ""; s.MaxWait = nwDuration(time.Hour); return s }, "max_wait_seconds"},
		{"max wait with return", func() Spec {
			s := dbSpec(time.Minute)
			s.OnDuplicate, s.MaxWait = OnDuplicateReturn, nwDuration(time.Hour)
			return s
		}, "max_wait_seconds"},
		{"max wait zero", func() Spec { s := dbSpec(time.Minute); s.MaxWait = nwDuration(0); return s }, "max_wait_seconds"},
		{"max wait negative", func() Spec { s := dbSpec(time.Minute); s.MaxWait = nwDuration(-time.Second); return s }, "max_wait_seconds"},
		{"max wait over ten years", func() Spec { s := dbSpec(time.Minute); s.MaxWait = nwDuration(MaxDelay + time.Second); return s }, "max_wait_seconds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAlarm("id", tc.spec(), nwNow, nwDefaults)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.field {
				t.Fatalf("err = %v, want a ValidationError on %q", err, tc.field)
			}
		})
	}
}

// A create asks for a replace only when it says so; its own fire time is already
// capped by its max wait, which counts from its own creation.
func TestNewAlarmDebounce(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spec     func() Spec
		debounce *Debounce
		fireAt   time.Time
	}{
		{"default returns", func() Spec { s := dbSpec(time.Minute); s.OnDuplicate = ""; return s }, nil, nwNow.Add(time.Minute)},
		{"return", func() Spec { s := dbSpec(time.Minute); s.OnDuplicate = OnDuplicateReturn; return s }, nil, nwNow.Add(time.Minute)},
		{"replace", func() Spec { return dbSpec(time.Minute) }, &Debounce{}, nwNow.Add(time.Minute)},
		{"within the max wait", func() Spec { s := dbSpec(time.Minute); s.MaxWait = nwDuration(time.Hour); return s },
			&Debounce{MaxWait: time.Hour}, nwNow.Add(time.Minute)},
		{"beyond the max wait", func() Spec { s := dbSpec(2 * time.Hour); s.MaxWait = nwDuration(time.Hour); return s },
			&Debounce{MaxWait: time.Hour}, nwNow.Add(time.Hour)},
		{"exactly the max wait", func() Spec { s := dbSpec(time.Hour); s.MaxWait = nwDuration(time.Hour); return s },
			&Debounce{MaxWait: time.Hour}, nwNow.Add(time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAlarm("id", tc.spec(), nwNow, nwDefaults)
			if err != nil {
				t.Fatal(err)
			}
			if (a.Debounce == nil) != (tc.debounce == nil) || a.Debounce != nil && *a.Debounce != *tc.debounce {
				t.Errorf("Debounce = %+v, want %+v", a.Debounce, tc.debounce)
			}
			if !a.FireAt.Equal(tc.fireAt) || !a.NextFireAt.Equal(tc.fireAt) || !a.ScheduledFor.Equal(tc.fireAt) {
				t.Errorf("fire times %v %v %v, want %v", a.FireAt, a.NextFireAt, a.ScheduledFor, tc.fireAt)
			}
		})
	}
}

// A replace moves the fire time to the repeat's, never past the first create plus the
// repeat's max wait, however late the repeat comes.
func TestReplaceMaxWait(t *testing.T) {
	first, err := NewAlarm("first", dbSpec(10*time.Minute), nwNow, nwDefaults)
	if err != nil {
		t.Fatal(err)
	}
	first.FailureCount, first.LastError = 2, "503"
	for _, tc := range []struct {
		name    string
		after   time.Duration // the repeat comes this long after the first create
		delay   time.Duration // and asks for this delay
		maxWait *time.Duration
		want    time.Time
	}{
		{"no cap", 50 * time.Minute, 10 * time.Minute, nil, nwNow.Add(time.Hour)},
		{"within the cap", 20 * time.Minute, 10 * time.Minute, nwDuration(time.Hour), nwNow.Add(30 * time.Minute)},
		{"at the cap", 50 * time.Minute, 10 * time.Minute, nwDuration(time.Hour), nwNow.Add(time.Hour)},
		{"capped", 55 * time.Minute, 10 * time.Minute, nwDuration(time.Hour), nwNow.Add(time.Hour)},
		{"cap from the first create, not the repeat", 3 * time.Hour, time.Minute, nwDuration(time.Hour), nwNow.Add(time.Hour)},
		{"earlier than before", 1 * time.Minute, 0, nwDuration(time.Hour), nwNow.Add(time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := dbSpec(tc.delay)
			s.MaxWait, s.Label, s.WakeMessage, s.Payload = tc.maxWait, "new", "msg", json.RawMessage(`{"n":2}`)
			r, err := NewAlarm("repeat", s, nwNow.Add(tc.after), nwDefaults)
			if err != nil {
				t.Fatal(err)
			}
			if OnRepeat(first, r) != RepeatReplaces {
				t.Fatal("an active unleased once alarm is not replaced")
			}
			p := Replace(first, r)
			if !p.FireAt.Equal(tc.want) || p.AlarmID != "first" {
				t.Errorf("FireAt = %v, want %v", p.FireAt, tc.want)
			}
			got := p.ApplyTo(first)
			want := first
			want.FireAt, want.NextFireAt, want.ScheduledFor = tc.want, tc.want, tc.want
			want.Label, want.WakeMessage, want.Payload = "new", "msg", json.RawMessage(`{"n":2}`)
			want.FailureCount, want.LastError, want.UpdatedAt = 0, "", r.CreatedAt
			assertRow(t, got, want)
			if e := p.Event; e.Type != EventReplaced || e.AlarmID != "first" || !e.At.Equal(r.CreatedAt) ||
				!e.ScheduledFor.Equal(tc.want) || !strings.Contains(e.Message, tc.want.Format(eventTime)) ||
				!strings.Contains(e.Message, first.NextFireAt.Format(eventTime)) {
				t.Errorf("event = %+v", e)
			}
		})
	}
}

// Only an active, unleased once alarm is replaced, every other once alarm passes its
// key on, a series is not debounced at all, and a create without a Debounce returns
// the key's alarm whatever it is.
func TestOnRepeat(t *testing.T) {
	once, err := NewAlarm("a", dbSpec(time.Minute), nwNow, nwDefaults)
	if err != nil {
		t.Fatal(err)
	}
	cron, err := NewAlarm("c", nwCronSpec(), nwNow, nwDefaults)
	if err != nil {
		t.Fatal(err)
	}
	plain := once
	plain.Debounce = nil
	leased := once
	leased.ClaimedBy, leased.ClaimedAt = "w1", nwNow
	status := func(s Status) Alarm { a := once; a.Status = s; return a }
	for _, tc := range []struct {
		name            string
		twin            Alarm
		withDebounce    Repeat
		withoutDebounce Repeat
	}{
		{"active", once, RepeatReplaces, RepeatReturns},
		{"leased", leased, RepeatTakesKey, RepeatReturns},
		{"fired", status(StatusFired), RepeatTakesKey, RepeatReturns},
		{"cancelled", status(StatusCancelled), RepeatTakesKey, RepeatReturns},
		{"failed", status(StatusFailed), RepeatTakesKey, RepeatReturns},
		{"series", cron, RepeatReturns, RepeatReturns},
	} {
		if got := OnRepeat(tc.twin, once); got != tc.withDebounce {
			t.Errorf("%s: OnRepeat with a Debounce = %d, want %d", tc.name, got, tc.withDebounce)
		}
		if got := OnRepeat(tc.twin, plain); got != tc.withoutDebounce {
			t.Errorf("%s: OnRepeat without a Debounce = %d, want %d", tc.name, got, tc.withoutDebounce)
		}
		if Replaceable(tc.twin) != (tc.withDebounce == RepeatReplaces) {
			t.Errorf("%s: Replaceable = %t", tc.name, Replaceable(tc.twin))
		}
	}
	if e := KeyReleased(leased, once); e.Type != EventKeyReleased || !strings.Contains(e.Message, "being delivered") {
		t.Errorf("KeyReleased = %+v", e)
	}
}
