package ports

import (
	"context"
	"fmt"

	"github.com/chronoshq/chronos/domain"
)

// CalendarStore keeps the owners' exclusion calendars (domain.Calendar) and which
// series name them: at most a few hundred rows per owner, written by their owner, and
// read by name (GetCalendars) by every node's dispatcher when a series' occurrence
// comes due (it caches each, reading one again when the "calendars" state the calendar
// use cases write says it changed) and by creates, updates and previews that name some.
//
// A series' calendars are the ExcludeCalendars of its domain.Series. The store keeps,
// besides the series column, an index from (owner, calendar) to the series that name
// it: CreateBatch writes it for every series it inserts that names calendars, and
// Mutate rewrites a series' entries when a transition's Define changes its
// exclude_calendars, each in the same transaction as the alarm. A calendar edit never
// touches a series row.
type CalendarStore interface {
	// PutCalendar creates or replaces the owner's calendar c.Name (validated and
	// normalised by the caller: domain.ValidateCalendar, domain.NormalizeCalendar),
	// stamping UpdatedAt with the store's now, and CreatedAt too when it is new (a
	// replace keeps the first CreatedAt); it returns the calendar as stored, its lists
	// exactly as given and times at the store's TimePrecision.
	//
	// maxPerOwner > 0 bounds the owner's calendars: a new one (not a replace) for an
	// owner that has maxPerOwner already is refused with domain.CalendarsOverLimit and
	// nothing is written. The count and the insert are one transaction; a store whose
	// writers run one at a time (SQLite) never passes the limit, others may by the
	// owner's concurrent creates at most. 0 is no limit. Cost: a walk of the owner's
	// primary key entries, at most maxPerOwner of them, only when the calendar is new.
	PutCalendar(ctx context.Context, c domain.Calendar, maxPerOwner int) (domain.Calendar, error)
	// GetCalendar returns the owner's calendar. ErrNotFound when there is none.
	GetCalendar(ctx context.Context, owner, name string) (domain.Calendar, error)
	// GetCalendars returns those of the owner's calendars that names names, by name (as
	// bytes): a name the owner has no calendar of is left out, one given twice is
	// returned once, and no names is an empty slice without a query. names holds at
	// most domain.MaxSeriesCalendars names in every call the app makes; a store may
	// take more in several reads. Cost: one read of the primary key (owner, name) per
	// name, never a walk of the owner's other calendars: an owner may hold hundreds of
	// large calendars, and a series names a few.
	GetCalendars(ctx context.Context, owner string, names []string) ([]domain.Calendar, error)
	// ListCalendars returns the owner's calendars by name (as bytes). None is an empty
	// slice. Only the owner's own listing reads them all.
	ListCalendars(ctx context.Context, owner string) ([]domain.Calendar, error)
	// DeleteCalendar removes the owner's calendar, unless an active or paused series of
	// the owner names it: then nothing changes and the error is a *CalendarInUseError
	// naming one such series (it wraps ErrConflict). ErrNotFound when there is none. The
	// check and the delete are one transaction, so a series that names the calendar is
	// never left without it by a delete. Cost: one walk of the (owner, calendar) index
	// entries, each joined to its alarm by primary key; never a scan of the alarms.
	DeleteCalendar(ctx context.Context, owner, name string) error
	// CalendarUser returns the id of an active or paused series of the owner that names
	// the calendar, and false when none does; the same indexed walk as DeleteCalendar's.
	CalendarUser(ctx context.Context, owner, name string) (string, bool, error)
}

// CalendarInUseError refuses the deletion of a calendar a series still names.
type CalendarInUseError struct {
	Owner, Name string
	SeriesID    string // one series that names it
}

func (e *CalendarInUseError) Error() string {
	return fmt.Sprintf("calendar %q of owner %q is used by series %s: remove it from the series' exclude_calendars first",
		e.Name, e.Owner, e.SeriesID)
}

// Unwrap makes the refusal an ErrConflict.
func (e *CalendarInUseError) Unwrap() error { return ErrConflict }
