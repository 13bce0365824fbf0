package mysql

import (
	"strings"
	"testing"

	"github.com/chronoshq/chronos/domain"
)

// The quota's count reads the owner's active and paused entries of
// alarms_owner_status_list and nothing else of the table (a range read from the index
// alone), before the table has statistics and after, and stops at its limit.
func TestCountActiveWalksItsIndex(t *testing.T) {
	ctx := t.Context()
	s, as := seededStore(t, 900, func(i int) domain.Alarm {
		return newDueAlarm(t, []string{"alice", "bob", "carol"}[i%3], `1`)
	})
	// alice: 300 alarms, of which 30 paused and 30 cancelled.
	for i := 0; i < len(as); i += 30 {
		mustExec(t, s.db, "UPDATE alarms SET kind = 'cron', cron_expr = '* * * * *', status = 'paused' WHERE id = ?", as[i].ID)
		mustExec(t, s.db, "UPDATE alarms SET status = 'cancelled' WHERE id = ?", as[i+3].ID)
	}
	for _, stats := range []string{"no statistics", "analyzed"} {
		if stats == "analyzed" {
			mustExec(t, s.db, "ANALYZE TABLE alarms")
		}
		var walk map[string]string
		for _, row := range explainRows(t, s.db, countActiveSQL, "alice", 1000) {
			if row["table"] == "alarms" {
				walk = row
			}
		}
		if walk["key"] != "alarms_owner_status_list" || walk["type"] != "range" ||
			!strings.Contains(walk["Extra"], "Using index") || strings.Contains(walk["Extra"], "filesort") {
			t.Errorf("%s: the count reads alarms as %v; want a range of alarms_owner_status_list from the index alone", stats, walk)
		}
	}
	for _, c := range []struct{ atMost, want int }{{1000, 270}, {100, 100}} {
		if got, err := s.CountActive(ctx, "alice", c.atMost); err != nil || got != c.want {
			t.Errorf("CountActive(alice, %d) = %d, %v; want %d", c.atMost, got, err, c.want)
		}
	}
}
