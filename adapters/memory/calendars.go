package memory

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// keepCalendar: lists of its own, times truncated.
func keepCalendar(c domain.Calendar) domain.Calendar {
	c.ExcludeDates = slices.Clone(c.ExcludeDates)
	c.ExcludeWeekdays = slices.Clone(c.ExcludeWeekdays)
	c.ExcludeRanges = slices.Clone(c.ExcludeRanges)
	c.CreatedAt, c.UpdatedAt = trunc(c.CreatedAt), trunc(c.UpdatedAt)
	return c
}

func (s *Store) PutCalendar(ctx context.Context, c domain.Calendar, maxPerOwner int) (domain.Calendar, error) {
	return txv(s, ctx, func() (domain.Calendar, error) {
		c.CreatedAt, c.UpdatedAt = s.now(), s.now()
		if old, err := s.calendars.get(ownerKey{c.Owner, c.Name}); err == nil {
			c.CreatedAt = old.CreatedAt
		} else if maxPerOwner > 0 && len(s.calendars.rows(func(x domain.Calendar) bool { return x.Owner == c.Owner }, nil)) >= maxPerOwner {
			return domain.Calendar{}, domain.CalendarsOverLimit(maxPerOwner)
		}
		return s.calendars.put(c), nil
	})
}

func (s *Store) GetCalendar(ctx context.Context, owner, name string) (domain.Calendar, error) {
	return txv(s, ctx, func() (domain.Calendar, error) { return s.calendars.get(ownerKey{owner, name}) })
}

func (s *Store) GetCalendars(ctx context.Context, owner string, names []string) ([]domain.Calendar, error) {
	return txv(s, ctx, func() ([]domain.Calendar, error) {
		return s.calendars.rows(func(c domain.Calendar) bool { return c.Owner == owner && slices.Contains(names, c.Name) }, byOwnerName), nil
	})
}

func (s *Store) ListCalendars(ctx context.Context, owner string) ([]domain.Calendar, error) {
	return txv(s, ctx, func() ([]domain.Calendar, error) {
		return s.calendars.rows(func(c domain.Calendar) bool { return c.Owner == owner }, byOwnerName), nil
	})
}

// DeleteCalendar: the check and the delete in one transaction.
func (s *Store) DeleteCalendar(ctx context.Context, owner, name string) error {
	return s.tx(ctx, func() error {
		if _, err := s.calendars.get(ownerKey{owner, name}); err != nil {
			return err
		}
		if id, used := s.calendarUser(owner, name); used {
			return &ports.CalendarInUseError{Owner: owner, Name: name, SeriesID: id}
		}
		return s.calendars.remove(ownerKey{owner, name})
	})
}

func (s *Store) CalendarUser(ctx context.Context, owner, name string) (string, bool, error) {
	var (
		id   string
		used bool
	)
	err := s.do(ctx, func() { id, used = s.calendarUser(owner, name) })
	return id, used, err
}

// calendarUser is the first (by id) of the owner's active or paused series that name
// the calendar. It walks the alarms where a database walks its series_calendars index,
// which the writes of a series keep (ports.CalendarStore).
func (s *Store) calendarUser(owner, name string) (string, bool) {
	users := s.alarms.rows(func(a domain.Alarm) bool {
		return a.Owner == owner && !a.Status.Terminal() && slices.Contains(a.Series.ExcludeCalendars, name)
	}, byID)
	if len(users) == 0 {
		return "", false
	}
	return users[0].ID, true
}

// ExportCalendars walks every calendar by (owner, name), as a database walks its
// primary key.
func (s *Store) ExportCalendars(ctx context.Context, after ports.CalendarCursor, limit int) ([]domain.Calendar, error) {
	return txv(s, ctx, func() ([]domain.Calendar, error) {
		return first(s.calendars.rows(func(c domain.Calendar) bool {
			return c.Owner > after.Owner || (c.Owner == after.Owner && c.Name > after.Name)
		}, byOwnerName), limit), nil
	})
}

func byOwnerName(x, y domain.Calendar) int {
	return cmp.Or(strings.Compare(x.Owner, y.Owner), strings.Compare(x.Name, y.Name))
}

// ImportCalendars keeps the stamps it is given.
func (s *Store) ImportCalendars(ctx context.Context, cs []domain.Calendar) error {
	return s.tx(ctx, func() error { return s.calendars.insertAll(cs) })
}
