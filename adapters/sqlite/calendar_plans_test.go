package sqlite

import (
	"strings"
	"testing"
)

// "Does a series use this calendar?" walks the series_calendars key of the calendar and
// finds each series by the alarms' primary key: never a scan of the alarms.
func TestCalendarUserPlan(t *testing.T) {
	s := openTemp(t, nil)
	p := queryPlan(t, s, engineSQL.CalendarUser, "o", "c")
	if !strings.Contains(p, "SEARCH sc USING PRIMARY KEY (owner=? AND calendar=?)") ||
		!strings.Contains(p, "SEARCH a USING INDEX sqlite_autoindex_alarms_1 (id=?)") || strings.Contains(p, "SCAN") {
		t.Errorf("CalendarUser plan %q", p)
	}
}

// A series' calendars are read by the primary key, name by name: never a walk of the
// owner's other calendars.
func TestCalendarsNamedPlan(t *testing.T) {
	s := openTemp(t, nil)
	p := queryPlan(t, s, engineSQL.CalendarsNamed, "o", "a", "b", "c", "d", "e", "f", "g", "h")
	if !strings.Contains(p, "(owner=? AND name=?)") || strings.Contains(p, "SCAN") {
		t.Errorf("CalendarsNamed plan %q", p)
	}
}
