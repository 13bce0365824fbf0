package sqlrow

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// A cron alarm's options (domain.Series) are kept in one text column, series, as a small
// JSON object. Only the domain reads them, never a query, so one column instead of eight
// keeps the claim's row narrow, and an option added later needs no migration. NULL is
// the zero Series (every once alarm, and most series), so those rows carry no text.

// seriesJSON is the stored form. Every field is omitted when zero, so the text holds
// only what was set. Unknown keys are ignored when reading: a newer binary may write
// options this one does not know.
type seriesJSON struct {
	Misfire      string `json:"misfire,omitempty"`
	CatchUpLimit int    `json:"catch_up_limit,omitempty"`
	// The window in nanoseconds: a time.Duration as it is, so any value the domain
	// accepts comes back exactly (the API takes whole seconds).
	CatchUpWindowNS     int64    `json:"catch_up_window_ns,omitempty"`
	MaxConsecutiveSkips int      `json:"max_consecutive_skips,omitempty"`
	StartAt             string   `json:"start_at,omitempty"` // RFC 3339, UTC, to the nanosecond
	EndAt               string   `json:"end_at,omitempty"`
	MaxFires            int      `json:"max_fires,omitempty"`
	JitterSeconds       int      `json:"jitter_seconds,omitempty"`
	BackfillOf          string   `json:"backfill_of,omitempty"`
	Notice              string   `json:"notice,omitempty"`
	ExcludeCalendars    []string `json:"exclude_calendars,omitempty"`
}

// EncodeSeries is the series column of s: "" for the zero Series, which the store
// writes as NULL (its nullable-text argument), else the JSON object. The times keep
// their nanoseconds whatever the store's TimePrecision: they are text here.
func EncodeSeries(s domain.Series) string {
	if s.IsZero() {
		return ""
	}
	b, err := json.Marshal(seriesJSON{
		Misfire:             string(s.Misfire),
		CatchUpLimit:        s.CatchUpLimit,
		CatchUpWindowNS:     int64(s.CatchUpWindow),
		MaxConsecutiveSkips: s.MaxConsecutiveSkips,
		StartAt:             seriesTime(s.StartAt),
		EndAt:               seriesTime(s.EndAt),
		MaxFires:            s.MaxFires,
		JitterSeconds:       s.JitterSeconds,
		BackfillOf:          s.BackfillOf,
		Notice:              s.Notice,
		ExcludeCalendars:    s.ExcludeCalendars,
	})
	if err != nil {
		panic(err) // strings and integers only: cannot fail
	}
	return string(b)
}

// DecodeSeries reads a series column: "" (NULL) is the zero Series.
func DecodeSeries(text string) (domain.Series, error) {
	if text == "" {
		return domain.Series{}, nil
	}
	var j seriesJSON
	if err := json.Unmarshal([]byte(text), &j); err != nil {
		return domain.Series{}, fmt.Errorf("series %q: %w", text, err)
	}
	start, err := parseSeriesTime(j.StartAt)
	if err != nil {
		return domain.Series{}, fmt.Errorf("series start_at: %w", err)
	}
	end, err := parseSeriesTime(j.EndAt)
	if err != nil {
		return domain.Series{}, fmt.Errorf("series end_at: %w", err)
	}
	return domain.Series{
		Misfire:             domain.Misfire(j.Misfire),
		CatchUpLimit:        j.CatchUpLimit,
		CatchUpWindow:       time.Duration(j.CatchUpWindowNS),
		MaxConsecutiveSkips: j.MaxConsecutiveSkips,
		StartAt:             start,
		EndAt:               end,
		MaxFires:            j.MaxFires,
		JitterSeconds:       j.JitterSeconds,
		BackfillOf:          j.BackfillOf,
		Notice:              j.Notice,
		ExcludeCalendars:    j.ExcludeCalendars,
	}, nil
}

func seriesTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func parseSeriesTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t.UTC(), err
}
