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
