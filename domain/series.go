package domain

import (
	"hash/fnv"
	"time"
	"unicode/utf8"
)

// Misfire says what a cron series does with occurrences it missed: those more than the
// misfire threshold (Policy.MisfireThreshold) past their due time when the series gets
// to them, because no node ran, the series was stuck retrying, or deliveries were slow.
// An occurrence less late than the threshold is not missed: it is delivered, late,
// under every policy (Quartz's rule).
type Misfire string

const (
	// MisfireFireOnce delivers one wake for a missed window (the oldest missed
	// occurrence, with its own scheduled_for) and drops the rest of it. The default, and
	// chronos's behaviour before there were policies.
	MisfireFireOnce Misfire = "fire_once"
	// MisfireSkip drops every missed occurrence; the next wake is the first occurrence
	// that is not missed.
	MisfireSkip Misfire = "skip"
	// MisfireCatchUp delivers every missed occurrence, oldest first, each with its own
	// scheduled_for and occurrence key, within Series.CatchUpWindow and at most the
	// newest Series.CatchUpLimit of them; older ones are dropped.
	MisfireCatchUp Misfire = "catch_up"
)

// Series is a cron alarm's options beyond its expression. The zero value is a plain
// series: fire_once, no bounds, no breaker, no jitter.
type Series struct {
	Misfire Misfire // "" means MisfireFireOnce
	// CatchUpLimit bounds catch_up to the newest this many missed occurrences (0 means
	// DefaultCatchUpLimit). CatchUpWindow, when set, drops missed occurrences due more
	// than that long ago.
	CatchUpLimit  int
	CatchUpWindow time.Duration
	// MaxConsecutiveSkips pauses the series once that many occurrences in a row were
	// given up after exhausting their deliveries (0: never).
	MaxConsecutiveSkips int
	// StartAt and EndAt bound the occurrences (inclusive; zero: unbounded). MaxFires
	// ends the series once that many occurrences were delivered (0: unbounded). A series
	// past its last occurrence ends as fired.
	StartAt  time.Time
	EndAt    time.Time
	MaxFires int
	// JitterSeconds delays each occurrence by a fraction of this many seconds drawn
	// from its occurrence key (see Jitter).
	JitterSeconds int
	// BackfillOf, set only on a backfill (see Backfill), is the series whose past
	// occurrences it delivers: its wakes carry that series' id and occurrence keys.
	BackfillOf string
	// Notice, set only on a failure notice (see notice.go), is its type: "alarm.failed"
	// or "alarm.paused". A notice is a once alarm whose payload is the notice's body,
	// sent to its endpoint's failure_url.
	Notice string
	// ExcludeCalendars names the owner's calendars (calendar.go) whose days the series
	// delivers no occurrence on; at most MaxSeriesCalendars, read when an occurrence
	// comes due, never copied here.
	ExcludeCalendars []string
}

// Limits and defaults of the series options (the API's contract; README lists them).
const (
	DefaultCatchUpLimit    = 100
	MaxCatchUpLimit        = 1000
	MaxJitterSeconds       = 3600
	MaxMaxFires            = 1_000_000_000
	MaxMaxConsecutiveSkips = 1000
	MaxPauseNoteLen        = 500 // characters
	// MaxPausedReasonLen bounds what the domain writes as paused_reason (a breaker's
	// reason quotes the last error, an invalid schedule's the expression): every store
	// keeps at least this many characters.
	MaxPausedReasonLen      = 1000
	DefaultMisfireThreshold = time.Minute
)

// IsZero reports whether the series has no options set.
func (s Series) IsZero() bool {
	if len(s.ExcludeCalendars) > 0 {
		return false
	}
	return s.comparable() == Series{}.comparable()
}

// comparable is s without its slices, which == cannot compare.
func (s Series) comparable() seriesScalars {
	return seriesScalars{s.Misfire, s.CatchUpLimit, s.CatchUpWindow, s.MaxConsecutiveSkips, s.StartAt, s.EndAt,
		s.MaxFires, s.JitterSeconds, s.BackfillOf, s.Notice}
}

type seriesScalars struct {
	misfire                 Misfire
	catchUpLimit            int
	catchUpWindow           time.Duration
	maxConsecutiveSkips     int
	startAt, endAt          time.Time
	maxFires, jitterSeconds int
	backfillOf, notice      string
}

// Policy is the misfire policy in force (fire_once when none was given).
func (s Series) Policy() Misfire { return s.misfire() }

// Limit is catch_up's limit in force (DefaultCatchUpLimit when none was given).
func (s Series) Limit() int { return s.catchUpLimit() }

// misfire is the policy in force.
func (s Series) misfire() Misfire {
	if s.Misfire == "" {
		return MisfireFireOnce
	}
	return s.Misfire
}

func (s Series) catchUpLimit() int {
	if s.CatchUpLimit <= 0 {
		return DefaultCatchUpLimit
	}
	return s.CatchUpLimit
}

// validate checks options given at create or update. Every refusal names its field.
func (s Series) validate() error {
	switch s.Misfire {
	case "", MisfireFireOnce, MisfireSkip, MisfireCatchUp:
	default:
		return invalid("misfire", `must be "fire_once", "skip" or "catch_up", got %q`, s.Misfire)
	}
	if s.CatchUpLimit != 0 && (s.CatchUpLimit < 1 || s.CatchUpLimit > MaxCatchUpLimit) {
		return invalid("catch_up_limit", "must be between 1 and %d, got %d", MaxCatchUpLimit, s.CatchUpLimit)
	}
	if s.CatchUpWindow < 0 {
		return invalid("catch_up_window", "must not be negative")
	}
	if s.CatchUpWindow > MaxDelay {
		return invalid("catch_up_window", "must be at most ten years")
	}
	if s.CatchUpWindow != 0 && s.CatchUpWindow < time.Second {
		return invalid("catch_up_window", "must be at least 1s")
	}
	if (s.CatchUpLimit != 0 || s.CatchUpWindow != 0) && s.misfire() != MisfireCatchUp {
		field := "catch_up_limit"
		if s.CatchUpLimit == 0 {
			field = "catch_up_window"
		}
		return invalid(field, `applies only to misfire "catch_up"`)
	}
	if s.MaxConsecutiveSkips < 0 || s.MaxConsecutiveSkips > MaxMaxConsecutiveSkips {
		return invalid("max_consecutive_skips", "must be between 0 (off) and %d, got %d", MaxMaxConsecutiveSkips, s.MaxConsecutiveSkips)
	}
	if s.MaxFires < 0 || s.MaxFires > MaxMaxFires {
		return invalid("max_fires", "must be between 0 (unbounded) and %d, got %d", MaxMaxFires, s.MaxFires)
	}
	if s.JitterSeconds < 0 || s.JitterSeconds > MaxJitterSeconds {
		return invalid("jitter_seconds", "must be between 0 and %d, got %d", MaxJitterSeconds, s.JitterSeconds)
	}
	if !s.StartAt.IsZero() && !s.EndAt.IsZero() && !s.EndAt.After(s.StartAt) {
		return invalid("end_at", "must be after start_at")
	}
	return validateCalendarNames(s.ExcludeCalendars)
}

// firstSetField names the first option set, for refusing options where none apply.
func (s Series) firstSetField() string {
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"misfire", s.Misfire != ""}, {"catch_up_limit", s.CatchUpLimit != 0}, {"catch_up_window", s.CatchUpWindow != 0},
		{"max_consecutive_skips", s.MaxConsecutiveSkips != 0}, {"start_at", !s.StartAt.IsZero()},
		{"end_at", !s.EndAt.IsZero()}, {"max_fires", s.MaxFires != 0}, {"jitter_seconds", s.JitterSeconds != 0},
		{"exclude_calendars", len(s.ExcludeCalendars) > 0},
	} {
		if f.set {
			return f.name
		}
	}
	return ""
}

// Jitter is the delay of one occurrence: a fraction of the series' jitter_seconds drawn
// from the occurrence key, to the millisecond. Every node and every retry computes the
// same delay, so it needs no column; scheduled_for and the occurrence key keep the
// unjittered time.
func Jitter(s Series, alarmID string, occurrence time.Time) time.Duration {
	if s.JitterSeconds <= 0 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(OccurrenceKey(alarmID, occurrence)))
	ms := h.Sum64() % uint64(s.JitterSeconds*1000)
	return time.Duration(ms) * time.Millisecond
}

// dueAt is when the alarm's occurrence o falls due: o plus its jitter.
func (a Alarm) dueAt(o time.Time) time.Time {
	return o.Add(Jitter(a.Series, a.ID, o))
}

// RemainingFires is how many more occurrences a series bounded by max_fires will
// deliver, and false when it is unbounded (or a once alarm).
func (a Alarm) RemainingFires() (int, bool) {
	if a.Kind != KindCron || a.Series.MaxFires == 0 {
		return 0, false
	}
	return max(a.Series.MaxFires-a.FireCount, 0), true
}

// reason cuts a paused_reason to MaxPausedReasonLen characters.
func reason(s string) string {
	if utf8.RuneCountInString(s) <= MaxPausedReasonLen {
		return s
	}
	r := []rune(s)
	return string(r[:MaxPausedReasonLen-1]) + "…"
}
