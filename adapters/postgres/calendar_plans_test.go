package postgres

import (
	"strings"
	"testing"
)

// "Does a series use this calendar?" walks the series_calendars key of the calendar and
// finds each series by alarms_pkey, in the generic plan: never a scan of the alarms.
func TestCalendarUserGenericPlanUsesTheIndexes(t *testing.T) {
	s, _ := newTestStore(t, nil)
	loadAlarms(t, s, 20000, 200, 5000)
	plan := explainGenericWith(t, s, engineSQL.CalendarUser, "COSTS OFF", `'owner1', 'holidays'`)
	if !strings.Contains(plan, "series_calendars_pkey") || !strings.Contains(plan, "alarms_pkey") || strings.Contains(plan, "Seq Scan on alarms") {
		t.Errorf("CalendarUser plan:\n%s", plan)
	}
}
