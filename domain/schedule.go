package domain

import (
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// NeverFiresHorizon: a cron expression with no occurrence within this span of its
// creation is refused as one that never fires (for example "0 0 30 2 *").
const NeverFiresHorizon = 5 * 365 * 24 * time.Hour

// MinEvery is the shortest "@every" interval accepted.
const MinEvery = time.Second

var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Schedule is a parsed cron expression bound to a timezone.
//
// TODO(dst): the DST policy of DESIGN is applied by the schedule helper's rewrite.
type Schedule struct {
	expr  string
	loc   *time.Location
	inner cron.Schedule
}

// ParseSchedule parses a 5-field expression, an "@daily"-style descriptor or
// "@every <duration>" (at least 1s) in the IANA zone tz. Errors are *ValidationError
// naming "cron_expr" or "timezone".
func ParseSchedule(expr, tz string) (*Schedule, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return nil, invalid("cron_expr", "is required for a cron alarm")
	}
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return nil, invalid("cron_expr", "must not carry a TZ= prefix; use the timezone field")
	}
	loc, err := time.LoadLocation(tz)
	if err != nil || tz == "" || tz == "Local" {
		return nil, invalid("timezone", "%q is not an IANA timezone name", tz)
	}
	inner, err := parser.Parse(expr)
	if err != nil {
		return nil, invalid("cron_expr", "%q: %v", expr, err)
	}
	if every, ok := inner.(cron.ConstantDelaySchedule); ok && every.Delay < MinEvery {
		return nil, invalid("cron_expr", "@every interval must be at least %s", MinEvery)
	}
	return &Schedule{expr: expr, loc: loc, inner: inner}, nil
}

// Next returns the first occurrence strictly after after, and false when there is none
// within NeverFiresHorizon.
func (s *Schedule) Next(after time.Time) (time.Time, bool) {
	n := s.inner.Next(after.In(s.loc))
	if n.IsZero() || n.Sub(after) > NeverFiresHorizon {
		return time.Time{}, false
	}
	return n.UTC(), true
}
