package client_test

import (
	"strings"
	"testing"

	"github.com/chronoshq/chronos/client"
)

// The calendar methods against the real routes: put, read, list, name one in a series,
// preview with it, refuse the delete while the series uses it.
func TestClientCalendarsAgainstTheRealServer(t *testing.T) {
	s := newRealServer(t)
	ctx := t.Context()
	put, err := s.alice.PutCalendar(ctx, client.Calendar{Name: "weekend", Timezone: "Europe/Berlin", ExcludeWeekdays: []int{6, 0},
		ExcludeRanges: []client.DateRange{{From: "2026-12-24", To: "2026-12-26"}}})
	if err != nil {
		t.Fatal(err)
	}
	if put.Name != "weekend" || len(put.ExcludeWeekdays) != 2 || put.ExcludeWeekdays[0] != 0 || put.ExcludeDates == nil || put.CreatedAt.IsZero() {
		t.Errorf("PutCalendar = %+v", put)
	}
	if got, err := s.alice.GetCalendar(ctx, "weekend"); err != nil || got.Timezone != "Europe/Berlin" {
		t.Errorf("GetCalendar = %+v, %v", got, err)
	}
	if _, err := s.bob.GetCalendar(ctx, "weekend"); !client.IsNotFound(err) {
		t.Errorf("bob's GetCalendar: %v, want not found", err)
	}
	if list, err := s.alice.ListCalendars(ctx); err != nil || len(list) != 1 {
		t.Errorf("ListCalendars = %+v, %v", list, err)
	}
	_, err = s.alice.PutCalendar(ctx, client.Calendar{Name: "bad", Timezone: "UTC", ExcludeDates: []string{"2026-02-30"}})
	if e, ok := err.(*client.Error); !client.IsInvalid(err) || !ok || e.Field != "exclude_dates[0]" {
		t.Errorf("a bad date: %v", err)
	}

	a, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{CronExpr: "0 9 * * *", Timezone: "Europe/Berlin", ExcludeCalendars: []string{"weekend"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.ExcludeCalendars, ",") != "weekend" || a.ScheduledFor.Weekday() == 0 || a.ScheduledFor.Weekday() == 6 {
		t.Errorf("the series: %v at %s", a.ExcludeCalendars, a.ScheduledFor)
	}
	times, err := s.alice.PreviewSchedule(ctx, client.PreviewSchedule{CronExpr: "0 9 * * *", Timezone: "Europe/Berlin", Count: 7,
		ExcludeCalendars: []string{"weekend"}})
	if err != nil || len(times) != 7 {
		t.Fatalf("PreviewSchedule: %v %v", times, err)
	}
	for _, at := range times {
		if wd := at.Weekday(); wd == 0 || wd == 6 {
			t.Errorf("the preview holds %s, a weekend day", at)
		}
	}
	err = s.alice.DeleteCalendar(ctx, "weekend")
	if !client.IsConflict(err) || !strings.Contains(err.Error(), a.ID) {
		t.Errorf("DeleteCalendar of a calendar in use: %v", err)
	}
	none := []string{}
	if _, err := s.alice.UpdateAlarm(ctx, a.ID, client.UpdateAlarm{ExcludeCalendars: &none}); err != nil {
		t.Fatal(err)
	}
	if err := s.alice.DeleteCalendar(ctx, "weekend"); err != nil {
		t.Errorf("DeleteCalendar once no series uses it: %v", err)
	}
}
