package mysql

import (
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// DuePauses walks alarms_paused_until in order and stops after the limit, before the
// table has statistics and after, on 1,000 alarms of which 100 are paused and 10 of
// those have an end that has passed: never a walk of alarms_due or alarms_rare_status
// (every paused alarm) and a sort, on the database clock or an injected one. On MariaDB,
// a call for 3 reads 3 rows.
func TestDuePausesWalksItsIndex(t *testing.T) {
	ctx := t.Context()
	s, as := seededStore(t, 1000, func(i int) domain.Alarm {
		return newDueAlarm(t, "o", `1`)
	})
	for i := 0; i < len(as); i += 10 {
		mustExec(t, s.db, "UPDATE alarms SET kind = 'cron', cron_expr = '* * * * *', status = 'paused' WHERE id = ?", as[i].ID)
		if i%100 == 0 {
			mustExec(t, s.db, "UPDATE alarms SET paused_until = ? WHERE id = ?", micro(testNow.Add(-time.Duration(i)*time.Second)), as[i].ID)
		}
	}
	for _, stats := range []string{"no statistics", "analyzed"} {
		if stats == "analyzed" {
			mustExec(t, s.db, "ANALYZE TABLE alarms")
		}
		for _, now := range []any{nil, micro(testNow)} {
			plan := explainRows(t, s.db, duePausesSQL, now, 3)
			if len(plan) != 1 || plan[0]["key"] != "alarms_paused_until" || plan[0]["type"] != "range" ||
				strings.Contains(plan[0]["Extra"], "filesort") {
				t.Errorf("%s, now %v: plan %v; want one range of alarms_paused_until, no sort", stats, now, plan)
			}
			if s.server.MariaDB && now != nil { // the database clock's now is years before testNow
				if got := rowsRead(t, s, duePausesSQL, now, 3); got != 3 {
					t.Errorf("%s, now %v: DuePauses(3) read %d rows, want 3", stats, now, got)
				}
			}
		}
	}
	ids, err := s.DuePauses(ctx, 3)
	if err != nil || len(ids) != 3 || ids[0] != as[900].ID || ids[2] != as[700].ID {
		t.Errorf("DuePauses(3) = %v, %v; want the three earliest ends, %s first", ids, err, as[900].ID)
	}
}
