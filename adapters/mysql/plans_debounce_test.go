package mysql

import (
	"testing"

	"github.com/chronoshq/chronos/domain"
)

// A debounced create's replace and its release of a key find their row by primary key.
func TestDebouncePlansUsePrimaryKey(t *testing.T) {
	s, as := seededStore(t, 1000, func(int) domain.Alarm { return newDueAlarm(t, "alice", `1`) })
	mustExec(t, s.db, "ANALYZE TABLE alarms")
	id := as[0].ID
	for _, c := range []struct {
		name string
		q    string
		args []any
	}{
		{"replace", engineSQL.ReplaceAlarm, []any{micro(testNow), micro(testNow), micro(testNow), []byte(`1`), "l", "m", micro(testNow), id}},
		{"release a key", engineSQL.ReleaseKey, []any{nil, id, "k"}},
	} {
		if plan := explainRows(t, s.db, c.q, c.args...); len(plan) != 1 || plan[0]["key"] != "PRIMARY" {
			t.Errorf("%s does not find its row by primary key: %v", c.name, plan)
		}
	}
}
