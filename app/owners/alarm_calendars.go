package owners

import (
	"context"
	"errors"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// ownerCalendars caches, for one call, the calendars of each owner read so far.
type ownerCalendars map[string][]domain.Calendar

// excluding checks a new series' exclude_calendars against its owner's calendars and
// moves its first occurrence past the days they exclude (domain.WithCalendars); an
// alarm naming none is returned as it is, with nothing read. seen, when not nil, keeps
// each owner's calendars for the rest of a batch.
func (s *Alarms) excluding(ctx context.Context, a domain.Alarm, now time.Time, seen ownerCalendars) (domain.Alarm, error) {
	if len(a.Series.ExcludeCalendars) == 0 {
		return a, nil
	}
	cals, ok := seen[a.Owner]
	if !ok {
		var err error
		if cals, err = s.store.ListCalendars(ctx, a.Owner); err != nil {
			return domain.Alarm{}, err
		}
		if seen != nil {
			seen[a.Owner] = cals
		}
	}
	return domain.WithCalendars(a, cals, now)
}

// calendarsOf reads the owner's calendars when names holds any; nil otherwise.
func (s *Alarms) calendarsOf(ctx context.Context, owner string, names []string) ([]domain.Calendar, error) {
	if len(names) == 0 {
		return nil, nil
	}
	return s.store.ListCalendars(ctx, owner)
}

// isStoreError reports whether err is a failure of the store rather than a refusal of
// the input: it fails the whole call, not one item.
func isStoreError(err error) bool {
	var ve *domain.ValidationError
	return err != nil && !errors.As(err, &ve)
}

// PreviewExcluding lists a schedule's next n occurrences after from (now when zero),
// leaving out the days the owner's calendars named by names exclude. An unknown name
// is a refusal naming "exclude_calendars[i]".
func (s *Alarms) PreviewExcluding(ctx context.Context, owner, expr, tz string, names []string, from time.Time, n int) ([]time.Time, error) {
	if from.IsZero() {
		from = s.clock.Now()
	}
	if err := domain.ValidateCalendarNames(names); err != nil {
		return nil, err
	}
	all, err := s.calendarsOf(ctx, owner, names)
	if err != nil {
		return nil, err
	}
	cals, err := domain.CalendarsNamed(names, all)
	if err != nil {
		return nil, err
	}
	return domain.PreviewExcluding(expr, tz, cals, from, n)
}
