package postgres

import (
	"strings"
	"testing"
)

// A debounced create's replace and its release of a key find their row by primary key
// in the generic plan too.
func TestDebounceGenericPlansUsePrimaryKey(t *testing.T) {
	s, _ := newTestStore(t, nil)
	loadAlarms(t, s, 20000, 200, 5000)
	const at = `'2031-01-01T00:00:00Z'`
	for _, c := range []struct{ name, q, args string }{
		{"replace", engineSQL.ReplaceAlarm, at + `, ` + at + `, ` + at + `, '{"n":1}', 'l', 'm', ` + at + `, '000000000001'`},
		{"release a key", engineSQL.ReleaseKey, `'', '000000000001', 'k'`},
	} {
		plan := explainGenericWith(t, s, c.q, "COSTS OFF", c.args)
		if !strings.Contains(plan, "Index Scan using alarms_pkey on alarms") || strings.Contains(plan, "Seq Scan") {
			t.Errorf("%s: generic plan does not find the row by primary key:\n%s", c.name, plan)
		}
	}
}
