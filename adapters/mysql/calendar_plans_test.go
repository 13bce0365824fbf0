package mysql

import "testing"

// "Does a series use this calendar?" walks the series_calendars key of the calendar and
// finds each series by the alarms' primary key: never a scan of the alarms.
func TestCalendarUserPlanUsesTheKeys(t *testing.T) {
	s, _ := openTestStore(t, Options{})
	mustExec(t, s.db, "ANALYZE TABLE alarms, series_calendars")
	plan := explainRows(t, s.db, engineSQL.CalendarUser, "o", "holidays")
	if len(plan) != 2 {
		t.Fatalf("CalendarUser plan: %v", plan)
	}
	for _, r := range plan {
		if r["key"] != "PRIMARY" {
			t.Errorf("CalendarUser reads %s by %q, want PRIMARY: %v", r["table"], r["key"], plan)
		}
	}
}
