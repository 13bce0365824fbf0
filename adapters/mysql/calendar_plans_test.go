package mysql

import (
	"fmt"
	"testing"
)

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

// A series' calendars are read by the primary key (a range of a few names): never a
// walk of the owner's other calendars.
func TestCalendarsNamedPlanUsesTheKey(t *testing.T) {
	s, _ := openTestStore(t, Options{})
	for i := range 2000 {
		mustExec(t, s.db, `INSERT INTO calendars (owner, name, timezone, exclusions, created_at, updated_at)
			VALUES (?, ?, 'UTC', '{"dates":[],"weekdays":[],"ranges":[]}', UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))`,
			fmt.Sprintf("owner%d", i%20), fmt.Sprintf("cal%d", i))
	}
	mustExec(t, s.db, "ANALYZE TABLE calendars")
	plan := explainRows(t, s.db, engineSQL.CalendarsNamed, "owner1", "cal1", "cal21", "cal41", "cal61", "cal81", "cal101", "cal121", "cal121")
	if len(plan) != 1 || plan[0]["key"] != "PRIMARY" || plan[0]["type"] != "range" {
		t.Errorf("CalendarsNamed plan: %v", plan)
	}
}
