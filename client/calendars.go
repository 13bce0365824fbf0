package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Calendar is one of the owner's exclusion calendars: the days, in its own timezone,
// on which a series naming it (CreateAlarm.ExcludeCalendars) delivers no occurrence.
type Calendar struct {
	Name     string
	Timezone string // an IANA zone: the one whose days the exclusions name
	// ExcludeDates are dates written "2006-01-02"; ExcludeWeekdays 0 (Sunday) to 6.
	ExcludeDates    []string
	ExcludeWeekdays []int
	// ExcludeRanges are inclusive runs of dates.
	ExcludeRanges []DateRange
	// CreatedAt and UpdatedAt are the server's; PutCalendar ignores them.
	CreatedAt time.Time
	UpdatedAt time.Time
}

// DateRange is an inclusive run of dates, "2006-01-02" each.
type DateRange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// calendarWire is a calendar as the API writes it, and (less its name and stamps) as
// PUT takes it.
type calendarWire struct {
	Name            string      `json:"name,omitempty"`
	Timezone        string      `json:"timezone"`
	ExcludeDates    []string    `json:"exclude_dates"`
	ExcludeWeekdays []int       `json:"exclude_weekdays"`
	ExcludeRanges   []DateRange `json:"exclude_ranges"`
	CreatedAt       *time.Time  `json:"created_at,omitempty"`
	UpdatedAt       *time.Time  `json:"updated_at,omitempty"`
}

func (w calendarWire) calendar() Calendar {
	c := Calendar{Name: w.Name, Timezone: w.Timezone, ExcludeDates: w.ExcludeDates, ExcludeWeekdays: w.ExcludeWeekdays,
		ExcludeRanges: w.ExcludeRanges}
	if w.CreatedAt != nil {
		c.CreatedAt = *w.CreatedAt
	}
	if w.UpdatedAt != nil {
		c.UpdatedAt = *w.UpdatedAt
	}
	return c
}

// PutCalendar creates or replaces the owner's calendar c.Name (PUT
// /v1/calendars/{name}) and answers it as stored (dates and weekdays sorted, without
// repeats). It is replaced whole: a list left nil is empty. A change applies to the
// next occurrence of every series naming it. Bad input is invalid (IsInvalid), its
// Field naming the input ("timezone", "exclude_dates[3]").
func (c *Client) PutCalendar(ctx context.Context, cal Calendar) (Calendar, error) {
	body, err := marshal(calendarWire{Timezone: cal.Timezone, ExcludeDates: cal.ExcludeDates,
		ExcludeWeekdays: cal.ExcludeWeekdays, ExcludeRanges: cal.ExcludeRanges})
	if err != nil {
		return Calendar{}, err
	}
	var out struct {
		Calendar calendarWire `json:"calendar"`
	}
	// A PUT answers the same however often it comes: a 503 may be retried.
	err = c.do(ctx, call{method: http.MethodPut, path: calendarPath(cal.Name), body: body, repeatable: true}, &out)
	return out.Calendar.calendar(), err
}

// GetCalendar returns one of the owner's calendars; IsNotFound when it has none of
// that name.
func (c *Client) GetCalendar(ctx context.Context, name string) (Calendar, error) {
	var out struct {
		Calendar calendarWire `json:"calendar"`
	}
	err := c.do(ctx, call{method: http.MethodGet, path: calendarPath(name)}, &out)
	return out.Calendar.calendar(), err
}

// ListCalendars returns the owner's calendars by name.
func (c *Client) ListCalendars(ctx context.Context) ([]Calendar, error) {
	var out struct {
		Calendars []calendarWire `json:"calendars"`
	}
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/calendars"}, &out); err != nil {
		return nil, err
	}
	cs := make([]Calendar, len(out.Calendars))
	for i, w := range out.Calendars {
		cs[i] = w.calendar()
	}
	return cs, nil
}

// DeleteCalendar deletes one of the owner's calendars. While an active or paused
// series names it the answer is a conflict (IsConflict) whose message names one.
func (c *Client) DeleteCalendar(ctx context.Context, name string) error {
	return c.do(ctx, call{method: http.MethodDelete, path: calendarPath(name)}, nil)
}

func calendarPath(name string) string { return "/v1/calendars/" + url.PathEscape(name) }
