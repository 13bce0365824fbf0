package postgres

import (
	"context"
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

// A series' calendars are read by calendars_pkey, in the generic plan, however many
// calendars their owner and the others hold: never a scan of the table.
func TestCalendarsNamedGenericPlanUsesTheKey(t *testing.T) {
	s, _ := newTestStore(t, nil)
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO calendars (owner, name, timezone, exclusions, created_at, updated_at)
			SELECT 'owner' || (i % 200), 'cal' || i, 'UTC', '{"dates":[],"weekdays":[],"ranges":[]}', now(), now()
			FROM generate_series(1, 20000) i`,
		`ANALYZE calendars`,
	} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	plan := explainGenericWith(t, s, engineSQL.CalendarsNamed, "COSTS OFF",
		`'owner1', 'cal1', 'cal201', 'cal401', 'cal601', 'cal801', 'cal1001', 'cal1201', 'cal1201'`)
	if !strings.Contains(plan, "calendars_pkey") || !strings.Contains(plan, "name = ANY") || strings.Contains(plan, "Seq Scan") {
		t.Errorf("CalendarsNamed plan:\n%s", plan)
	}
}
