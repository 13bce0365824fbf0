package owners

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// calendarKey is one owner's calendar name.
type calendarKey struct{ owner, name string }

// seenCalendars keeps, for one call, the calendars read so far by owner and name; nil
// marks a name the owner has no calendar of.
type seenCalendars map[calendarKey]*domain.Calendar

// calendarsNamed reads those of the owner's calendars names names, nothing when it
// names none: never the owner's other calendars, which may be many and large. seen,
// when not nil, keeps what was read for the rest of a batch, so a name is read once.
func (s *Alarms) calendarsNamed(ctx context.Context, owner string, names []string, seen seenCalendars) ([]domain.Calendar, error) {
	if len(names) == 0 {
		return nil, nil
	}
	if seen == nil {
		return s.store.GetCalendars(ctx, owner, names)
	}
	var missing []string
	for _, n := range names {
		if _, ok := seen[calendarKey{owner, n}]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		got, err := s.store.GetCalendars(ctx, owner, missing)
		if err != nil {
			return nil, err
		}
		for _, n := range missing {
			seen[calendarKey{owner, n}] = nil
		}
		for i := range got {
			seen[calendarKey{owner, got[i].Name}] = &got[i]
		}
	}
	var cals []domain.Calendar
	for _, n := range names {
		if c := seen[calendarKey{owner, n}]; c != nil {
			cals = append(cals, *c)
		}
	}
	return cals, nil
}

// excluding checks a new series' exclude_calendars against its owner's calendars and
// moves its first occurrence past the days they exclude (domain.WithCalendars); an
// alarm naming none is returned as it is, with nothing read.
func (s *Alarms) excluding(ctx context.Context, a domain.Alarm, now time.Time, seen seenCalendars) (domain.Alarm, error) {
	if len(a.Series.ExcludeCalendars) == 0 {
		return a, nil
	}
	cals, err := s.calendarsNamed(ctx, a.Owner, a.Series.ExcludeCalendars, seen)
	if err != nil {
		return domain.Alarm{}, err
	}
	return domain.WithCalendars(a, cals, now)
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
	named, err := s.calendarsNamed(ctx, owner, names, nil)
	if err != nil {
		return nil, err
	}
	cals, err := domain.CalendarsNamed(names, named)
	if err != nil {
		return nil, err
	}
	return domain.PreviewExcluding(expr, tz, cals, from, n)
}

// errCalendarsMoved: the series' calendar names changed between the read of its
// calendars and the row's lock; the update reads them again.
var errCalendarsMoved = errors.New("owners: the series' calendars changed meanwhile")

// updateTries bounds how often an update reads the calendars again because a
// concurrent one changed the names under it.
const updateTries = 3

// updateExcluding applies p under the row's lock with the calendars the series names
// after it. Those are read before the lock (a patch that names none keeps the
// series' own, learned by a read of the alarm first) and checked under it: when the
// names moved meanwhile, they are read again.
func (s *Alarms) updateExcluding(ctx context.Context, owner, id string, p domain.Patch) (domain.Alarm, error) {
	var names []string
	if p.ExcludeCalendars != nil {
		if err := domain.ValidateCalendarNames(*p.ExcludeCalendars); err != nil {
			return domain.Alarm{}, err
		}
		names = *p.ExcludeCalendars
	} else {
		a, err := s.store.Get(ctx, ports.OwnedBy(owner), id)
		if err != nil {
			return domain.Alarm{}, err
		}
		names = a.Series.ExcludeCalendars
	}
	for try := 1; ; try++ {
		cals, err := s.calendarsNamed(ctx, owner, names, nil)
		if err != nil {
			return domain.Alarm{}, err
		}
		var now []string // the names under the lock, when they moved
		a, err := s.store.Mutate(ctx, ports.OwnedBy(owner), id, func(a domain.Alarm, at time.Time) (domain.Transition, bool, error) {
			if p.ExcludeCalendars == nil && !slices.Equal(a.Series.ExcludeCalendars, names) {
				now = a.Series.ExcludeCalendars
				return domain.Transition{}, false, errCalendarsMoved
			}
			return domain.UpdateExcluding(a, p, cals, at)
		})
		if !errors.Is(err, errCalendarsMoved) || try == updateTries {
			return a, err
		}
		names = now
	}
}
