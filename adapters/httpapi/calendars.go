package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Calendars is an owner's exclusion calendars (*owners.Calendars).
type Calendars interface {
	// Put validates c and creates or replaces the owner's calendar c.Name.
	Put(ctx context.Context, c domain.Calendar) (domain.Calendar, error)
	Get(ctx context.Context, owner, name string) (domain.Calendar, error)
	List(ctx context.Context, owner string) ([]domain.Calendar, error)
	// Delete is refused with a *ports.CalendarInUseError while a series names it.
	Delete(ctx context.Context, owner, name string) error
}

// calendarRoutes adds the owner's calendar routes to r; without Calendars they are not
// served at all.
func (a *api) calendarRoutes(r *mux.Router) {
	if a.calendars == nil {
		return
	}
	const one = "/v1/calendars/{name}"
	r.Handle("/v1/calendars", a.owned(a.listCalendars)).Methods(http.MethodGet)
	r.Handle(one, a.owned(a.putCalendar)).Methods(http.MethodPut)
	r.Handle(one, a.owned(a.getCalendar)).Methods(http.MethodGet)
	r.Handle(one, a.owned(a.deleteCalendar)).Methods(http.MethodDelete)
}

// calendarRequest is the body of PUT /v1/calendars/{name}: the calendar whole, every
// list optional (absent: empty).
type calendarRequest struct {
	Timezone        string      `json:"timezone"`
	ExcludeDates    []string    `json:"exclude_dates"`
	ExcludeWeekdays []int       `json:"exclude_weekdays"`
	ExcludeRanges   []dateRange `json:"exclude_ranges"`
}

// calendarView is a calendar as its owner sees it.
type calendarView struct {
	Name            string      `json:"name"`
	Timezone        string      `json:"timezone"`
	ExcludeDates    []string    `json:"exclude_dates"`
	ExcludeWeekdays []int       `json:"exclude_weekdays"`
	ExcludeRanges   []dateRange `json:"exclude_ranges"`
	CreatedAt       jsonio.Time `json:"created_at"`
	UpdatedAt       jsonio.Time `json:"updated_at"`
}

// dateRange is a calendar's range of excluded dates as a request gives it and a view
// shows it.
type dateRange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func newCalendarView(c domain.Calendar) calendarView {
	v := calendarView{Name: c.Name, Timezone: c.Timezone, ExcludeDates: jsonio.Array(c.ExcludeDates), ExcludeWeekdays: jsonio.Array(c.ExcludeWeekdays),
		ExcludeRanges: make([]dateRange, len(c.ExcludeRanges)), CreatedAt: jsonio.Time(c.CreatedAt), UpdatedAt: jsonio.Time(c.UpdatedAt)}
	for i, r := range c.ExcludeRanges {
		v.ExcludeRanges[i] = dateRange(r)
	}
	return v
}

// putCalendar serves PUT /v1/calendars/{name}: 200 with the calendar as stored. A
// change applies to the next occurrence of every series naming it.
func (a *api) putCalendar(w http.ResponseWriter, r *http.Request, owner string) {
	var req calendarRequest
	if !a.readObject(w, r, &req) {
		return
	}
	c := domain.Calendar{Owner: owner, Name: mux.Vars(r)["name"], Timezone: req.Timezone,
		ExcludeDates: req.ExcludeDates, ExcludeWeekdays: req.ExcludeWeekdays}
	for _, x := range req.ExcludeRanges {
		c.ExcludeRanges = append(c.ExcludeRanges, domain.DateRange(x))
	}
	stored, err := a.calendars.Put(r.Context(), c)
	a.answer(w, r, calendarError(err), "calendar", newCalendarView(stored))
}

// getCalendar serves GET /v1/calendars/{name}.
func (a *api) getCalendar(w http.ResponseWriter, r *http.Request, owner string) {
	c, err := a.calendars.Get(r.Context(), owner, mux.Vars(r)["name"])
	a.answer(w, r, calendarError(err), "calendar", newCalendarView(c))
}

// listCalendars serves GET /v1/calendars: the owner's calendars by name.
func (a *api) listCalendars(w http.ResponseWriter, r *http.Request, owner string) {
	cs, err := a.calendars.List(r.Context(), owner)
	a.answer(w, r, err, "calendars", views(cs, newCalendarView))
}

// deleteCalendar serves DELETE /v1/calendars/{name}: 204, or 409 naming a series that
// still uses it.
func (a *api) deleteCalendar(w http.ResponseWriter, r *http.Request, owner string) {
	if err := a.calendars.Delete(r.Context(), owner, mux.Vars(r)["name"]); err != nil {
		a.writeError(w, r, calendarError(err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// calendarError rewords the table's answers that speak of alarms for the calendar
// routes.
func calendarError(err error) error {
	var inUse *ports.CalendarInUseError
	switch {
	case errors.As(err, &inUse):
		return &apiError{Status: http.StatusConflict, Code: "conflict", Message: inUse.Error(), Field: "name"}
	case errors.Is(err, ports.ErrNotFound):
		return &apiError{Status: http.StatusNotFound, Code: "not_found", Message: "no such calendar"}
	}
	return err
}
