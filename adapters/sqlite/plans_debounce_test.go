package sqlite

import (
	"strings"
	"testing"
)

// A debounced create's replace and its release of a key find their row by primary key.
func TestDebouncePlans(t *testing.T) {
	s := openTemp(t, nil)
	for _, c := range []struct {
		name string
		q    string
		args []any
	}{
		{"replace", engineSQL.ReplaceAlarm, []any{1, 1, 1, "null", "l", "m", 1, "a"}},
		{"release a key", engineSQL.ReleaseKey, []any{"", "a", "k"}},
	} {
		p := queryPlan(t, s, c.q, c.args...)
		if !strings.Contains(p, "INDEX sqlite_autoindex_alarms_1 (id=?)") || scansTable(p) {
			t.Errorf("%s: plan %q does not find the row by primary key", c.name, p)
		}
	}
}
