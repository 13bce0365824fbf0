package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Calendars are a handful of rows per owner, written by their owner now and then; a
// series names them through the series_calendars index, written in the transaction
// that writes the series (CreateBatch, Mutate: linkCalendars), so that the delete's
// check walks an index, never the alarms.

// PutCalendar replaces the owner's calendar, or inserts it when there is none, stamped
// with the store's now, and reads it back in the same transaction for the created_at a
// replace keeps. An update and an insert rather than each dialect's upsert (MySQL's
// VALUES() is deprecated, and MariaDB has no row alias): an insert that lost the race
// to a concurrent one is run again, as the update it now is.
func (e *Engine[T]) PutCalendar(ctx context.Context, c domain.Calendar, maxPerOwner int) (domain.Calendar, error) {
	var stored domain.Calendar
	put := func(tx DB) error {
		now, err := e.Now(ctx, tx)
		if err != nil {
			return err
		}
		text := sqlrow.EncodeExclusions(c)
		n, err := tx.Exec(ctx, e.SQL.UpdateCalendar, c.Timezone, text, e.TimeArg(now), c.Owner, c.Name)
		if err == nil && n == 0 {
			if err = e.roomForCalendar(ctx, tx, c.Owner, maxPerOwner); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, e.SQL.InsertCalendar, c.Owner, c.Name, c.Timezone, text, e.TimeArg(now), e.TimeArg(now))
		}
		if err != nil {
			return err
		}
		stored, err = e.scanCalendar(tx.QueryRow(ctx, e.SQL.GetCalendar, c.Owner, c.Name))
		return err
	}
	err := e.mapError(e.Tx(ctx, put))
	if errors.Is(err, ports.ErrConflict) {
		err = e.mapError(e.Tx(ctx, put))
	}
	if err != nil {
		return domain.Calendar{}, err
	}
	return stored, nil
}

// roomForCalendar refuses a new calendar of an owner that has maxPerOwner (> 0)
// already, counting at most that many in tx.
func (e *Engine[T]) roomForCalendar(ctx context.Context, tx DB, owner string, maxPerOwner int) error {
	if maxPerOwner <= 0 {
		return nil
	}
	var n int
	if err := tx.QueryRow(ctx, e.SQL.CountCalendars, owner, maxPerOwner).Scan(&n); err != nil {
		return err
	}
	if n >= maxPerOwner {
		return Mapped(domain.CalendarsOverLimit(maxPerOwner))
	}
	return nil
}

// GetCalendar returns the owner's calendar.
func (e *Engine[T]) GetCalendar(ctx context.Context, owner, name string) (domain.Calendar, error) {
	c, err := one(ctx, e.Read, e.scanCalendar, e.calendarNotFound(owner, name), e.SQL.GetCalendar, owner, name)
	return c, e.mapError(err)
}

// CalendarsPerRead is how many names one CalendarsNamed statement takes: a series'
// most, so that every read the app makes is one statement.
const CalendarsPerRead = domain.MaxSeriesCalendars

// GetCalendars reads the owner's calendars names names, CalendarsPerRead names a
// statement, the last name repeated to fill its placeholders.
func (e *Engine[T]) GetCalendars(ctx context.Context, owner string, names []string) ([]domain.Calendar, error) {
	out := []domain.Calendar{}
	for chunk := range slices.Chunk(names, CalendarsPerRead) {
		args := make([]any, 1, 1+CalendarsPerRead)
		args[0] = owner
		for i := range CalendarsPerRead {
			args = append(args, chunk[min(i, len(chunk)-1)])
		}
		cs, err := List(ctx, e.Read, e.scanCalendar, e.SQL.CalendarsNamed, args...)
		if err != nil {
			return nil, e.mapError(err)
		}
		out = append(out, cs...)
	}
	if len(names) > CalendarsPerRead { // several reads: one order, each calendar once
		slices.SortFunc(out, func(a, b domain.Calendar) int { return strings.Compare(a.Name, b.Name) })
		out = slices.CompactFunc(out, func(a, b domain.Calendar) bool { return a.Name == b.Name })
	}
	return out, nil
}

// ListCalendars returns the owner's calendars by name.
func (e *Engine[T]) ListCalendars(ctx context.Context, owner string) ([]domain.Calendar, error) {
	cs, err := List(ctx, e.Read, e.scanCalendar, e.SQL.ListCalendars, owner)
	return cs, e.mapError(err)
}

// DeleteCalendar locks the calendar's row, so no create that names it can commit in
// between (a create reads it first: owners.Alarms), checks that no active or paused
// series names it, and deletes it with its index rows.
func (e *Engine[T]) DeleteCalendar(ctx context.Context, owner, name string) error {
	err := e.Tx(ctx, func(tx DB) error {
		if _, err := one(ctx, tx, e.scanCalendar, e.calendarNotFound(owner, name), e.SQL.LockCalendar, owner, name); err != nil {
			return err
		}
		if id, used, err := e.calendarUser(ctx, tx, owner, name); err != nil {
			return err
		} else if used {
			return Mapped(&ports.CalendarInUseError{Owner: owner, Name: name, SeriesID: id})
		}
		if _, err := tx.Exec(ctx, e.SQL.DeleteCalendar, owner, name); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, e.SQL.DeleteCalendarLinks, owner, name)
		return err
	})
	return e.mapError(err)
}

// CalendarUser returns an active or paused series of the owner that names the
// calendar.
func (e *Engine[T]) CalendarUser(ctx context.Context, owner, name string) (string, bool, error) {
	id, used, err := e.calendarUser(ctx, e.Read, owner, name)
	return id, used, e.mapError(err)
}

func (e *Engine[T]) calendarUser(ctx context.Context, db DB, owner, name string) (string, bool, error) {
	var id string
	err := db.QueryRow(ctx, e.SQL.CalendarUser, owner, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return id, err == nil, err
}

// linkCalendars writes in tx the index rows of the series in links (CreateBatch's
// inserted series), one statement for all of them; nothing without any.
func (e *Engine[T]) linkCalendars(ctx context.Context, tx DB, links [][3]string) error {
	if len(links) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, e.SQL.LinkCalendars, sqlrow.EncodeLinks(links))
	return err
}

// relinkCalendars rewrites in tx a series' index rows when an update changed the
// calendars it names.
func (e *Engine[T]) relinkCalendars(ctx context.Context, tx DB, a domain.Alarm, now []string) error {
	was := a.Series.ExcludeCalendars
	if slices.Equal(was, now) {
		return nil
	}
	for _, name := range was { // at most domain.MaxSeriesCalendars, and updates are rare
		if _, err := tx.Exec(ctx, e.SQL.UnlinkCalendar, a.Owner, name, a.ID); err != nil {
			return err
		}
	}
	return e.linkCalendars(ctx, tx, sqlrow.CalendarLinks(a.Owner, a.ID, now, nil))
}

func (e *Engine[T]) calendarNotFound(owner, name string) error {
	return Mapped(fmt.Errorf("%s: calendar %q of owner %q: %w", e.Name, name, owner, ports.ErrNotFound))
}

func (e *Engine[T]) scanCalendar(r sqlrow.Scanner) (domain.Calendar, error) {
	return sqlrow.ScanCalendar(r, e.ToTime)
}

// ExportCalendars returns the next page of every owner's calendars by (owner, name).
func (e *Engine[T]) ExportCalendars(ctx context.Context, after ports.CalendarCursor, limit int) ([]domain.Calendar, error) {
	cs, err := List(ctx, e.Read, e.scanCalendar, e.SQL.ExportCalendars, after.Owner, after.Owner, after.Name, limit)
	return cs, e.mapError(err)
}

// ImportCalendars inserts cs with their own stamps in one transaction, one statement
// each (InsertCalendar): a few rows per owner. A taken (owner, name) fails it on the
// primary key.
func (e *Engine[T]) ImportCalendars(ctx context.Context, cs []domain.Calendar) error {
	if len(cs) == 0 {
		return nil
	}
	return e.mapError(e.Tx(ctx, func(tx DB) error {
		for _, c := range cs {
			_, err := tx.Exec(ctx, e.SQL.InsertCalendar, c.Owner, c.Name, c.Timezone, sqlrow.EncodeExclusions(c),
				e.TimeArg(c.CreatedAt), e.TimeArg(c.UpdatedAt))
			if err != nil {
				return err
			}
		}
		return nil
	}))
}
