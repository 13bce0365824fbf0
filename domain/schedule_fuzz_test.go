package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// fuzzInstants are where FuzzParseSchedule asks for occurrences: both sides of the
// transitions the DST tests pin, a skipped day, ordinary days, and the far ends of
// time, where arithmetic overflows if anywhere.
var fuzzInstants = []time.Time{
	time.Date(2026, 3, 29, 0, 59, 59, 999999999, time.UTC), // Berlin, just before spring forward
	time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC),           // Berlin, at it
	time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC),         // Berlin, first 02:30
	time.Date(2026, 10, 25, 1, 15, 0, 0, time.UTC),         // Berlin, second 02:15
	time.Date(2026, 3, 8, 6, 45, 0, 0, time.UTC),           // New York, before the gap
	time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC),          // New York, first 01:30
	time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC),          // New York, second 01:30
	time.Date(2026, 9, 6, 3, 59, 0, 0, time.UTC),           // Santiago, missing midnight
	time.Date(2011, 12, 30, 9, 0, 0, 0, time.UTC),          // Apia, the day it skipped
	time.Date(2026, 1, 15, 10, 7, 30, 500, time.UTC),
	time.Date(2099, 12, 31, 23, 59, 59, 0, time.UTC),
	time.Date(1901, 12, 13, 20, 45, 52, 0, time.UTC), // before most zones' first transition
	{}, // year 1
	time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
}

// FuzzParseSchedule: parsing never panics and refuses only with a *ValidationError
// naming one of its two fields; a schedule that parses answers Next with an instant
// strictly after its argument, in UTC and within the horizon, or with false.
func FuzzParseSchedule(f *testing.F) {
	f.Fuzz(func(t *testing.T, expr, tz string) {
		s, err := domain.ParseSchedule(expr, tz)
		if err != nil {
			var ve *domain.ValidationError
			if !errors.As(err, &ve) || (ve.Field != "cron_expr" && ve.Field != "timezone") {
				t.Fatalf("ParseSchedule(%q, %q) = %v; want a *ValidationError on cron_expr or timezone", expr, tz, err)
			}
			return
		}
		for _, after := range fuzzInstants {
			at := after
			for i := 0; i < 3; i++ { // a few in a row: each answer is the next question
				next, ok := s.Next(at)
				if !ok {
					if !next.IsZero() {
						t.Fatalf("%q in %q: Next(%s) = %s with false", expr, tz, at, next)
					}
					break
				}
				if !next.After(at) || next.Sub(at) > domain.NeverFiresHorizon || next.Location() != time.UTC {
					t.Fatalf("%q in %q: Next(%s) = %s", expr, tz, at, next)
				}
				at = next
			}
		}
	})
}
