package mysql

import (
	"slices"
	"testing"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// AdminList's label prefix compares bytes whatever collation the label column and the
// connection were given: on case- and accent-insensitive ones (a table converted by
// hand, a URL's collation=utf8mb4_general_ci), "Ca" still does not match "case" nor "É"
// "é". The store's LIKE escape character and trailing spaces are plain characters too.
func TestAdminLabelPrefixComparesBytes(t *testing.T) {
	s, _ := openTestStore(t, Options{Clock: fixedClock(testNow)}, "collation", "utf8mb4_general_ci")
	mustExec(t, s.db, "ALTER TABLE alarms MODIFY label VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL")

	byLabel := map[string]string{}
	var as []domain.Alarm
	for _, l := range []string{"Case", "case", "a!b", "a!!b", "ab", "a", "a b", "É", "é", "E"} {
		a := newDueAlarm(t, "alice", `1`)
		a.Label = l
		as = append(as, a)
		byLabel[l] = a.ID
	}
	if err := s.CreateMany(t.Context(), as); err != nil {
		t.Fatal(err)
	}
	for prefix, labels := range map[string][]string{
		"Ca":  {"Case"},
		"É":   {"É"},
		"a!":  {"a!b", "a!!b"},
		"a!!": {"a!!b"},
		"a ":  {"a b"},
		"a":   {"a!b", "a!!b", "ab", "a", "a b"},
	} {
		var want []string
		for _, l := range labels {
			want = append(want, byLabel[l])
		}
		slices.Sort(want)
		slices.Reverse(want)
		got, _, err := s.List(t.Context(), ports.ListFilter{Scope: ports.AnyOwner, LabelPrefix: prefix})
		if ids := alarmIDsOf(got); err != nil || !slices.Equal(ids, want) {
			t.Errorf("label prefix %q = %v, %v; want %v (labels %q)", prefix, ids, err, want, labels)
		}
	}
}
