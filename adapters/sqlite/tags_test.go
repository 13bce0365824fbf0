package sqlite

import (
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/adapters/internal/storetest"
)

// A tag page walks alarm_tags_filter of the owner's first pair in id order (no sort),
// to the page's end or bounded, checks the other pairs and joins the alarm by primary
// key, from the top or a cursor;
// an alarm's tags are read, and deleted, by the primary key of alarm_tags.
func TestTagPagePlans(t *testing.T) {
	s := openTemp(t, nil)
	for _, c := range storetest.TagPageShapes {
		for _, after := range []string{"", "x"} {
			q, args := s.Engine.TagPage(c.F, after, 100)
			p := queryPlan(t, s, q, args...)
			if !strings.Contains(p, "SEARCH t USING COVERING INDEX alarm_tags_filter (owner=? AND tag_key=? AND tag_value=?") ||
				!strings.Contains(p, "SEARCH a USING INDEX sqlite_autoindex_alarms_1 (id=?)") ||
				strings.Contains(p, "TEMP B-TREE") || strings.Contains(p, "SCAN") {
				t.Errorf("%s, cursor %t: plan %q does not walk alarm_tags_filter in order", c.Name, after != "", p)
			}
			if n := len(c.F.Tags) - 1; strings.Count(p, "USING PRIMARY KEY (alarm_id=? AND tag_key=?)") != n {
				t.Errorf("%s, cursor %t: plan %q does not check the other %d pairs by primary key", c.Name, after != "", p, n)
			}
		}
	}
	// With other conditions the walk of the first pair is a range of alarm_tags_filter
	// bounded below by its TagWalk-th entry, read from the index alone once (the CTE w,
	// one row, which the range's start, the edge's flag and its filter read), and each
	// other pair
	// is checked by primary key (for the row's hit, and in the filter).
	for _, c := range storetest.WalkTagPageShapes {
		for _, after := range []string{"", "x"} {
			q, args := s.Engine.WalkTagPage(c.F, after, 100)
			p := queryPlan(t, s, q, args...)
			walk, edge := "alarm_id>?", ""
			if after != "" {
				walk, edge = "alarm_id>? AND alarm_id<?", " AND alarm_id<?"
			}
			if !strings.Contains(p, "SEARCH t USING COVERING INDEX alarm_tags_filter (owner=? AND tag_key=? AND tag_value=? AND "+walk+")") ||
				strings.Count(p, "SEARCH e USING COVERING INDEX alarm_tags_filter (owner=? AND tag_key=? AND tag_value=?"+edge+")") != 1 ||
				!strings.Contains(p, "SEARCH a USING INDEX sqlite_autoindex_alarms_1 (id=?)") ||
				strings.Contains(p, "TEMP B-TREE") || strings.Contains(strings.NewReplacer("SCAN w", "", "SCAN CONSTANT ROW", "").Replace(p), "SCAN") {
				t.Errorf("%s, cursor %t: plan %q does not walk a bounded range of alarm_tags_filter in order", c.Name, after != "", p)
			}
			if n := len(c.F.Tags) - 1; strings.Count(p, "USING PRIMARY KEY (alarm_id=? AND tag_key=?)") != 2*n {
				t.Errorf("%s, cursor %t: plan %q does not check the other %d pairs by primary key", c.Name, after != "", p, n)
			}
		}
	}
	// With a rare status the page walks the owner's alarms of it instead, and checks
	// every pair by the primary key of alarm_tags.
	for _, c := range storetest.StatusTagPageShapes {
		for _, after := range []string{"", "x"} {
			q, args := s.Engine.StatusTagPage(c.F, after, 100)
			p := queryPlan(t, s, q, args...)
			if !strings.Contains(p, "SEARCH a USING INDEX alarms_owner_status (owner=? AND status=?") ||
				strings.Contains(p, "TEMP B-TREE") || strings.Contains(p, "SCAN") {
				t.Errorf("%s, cursor %t: plan %q does not walk alarms_owner_status in order", c.Name, after != "", p)
			}
			if n := len(c.F.Tags); strings.Count(p, "USING PRIMARY KEY (alarm_id=? AND tag_key=?)") != n {
				t.Errorf("%s, cursor %t: plan %q does not check the %d pairs by primary key", c.Name, after != "", p, n)
			}
		}
	}
	for name, q := range map[string]string{
		"read":   `SELECT alarm_id, tag_key, tag_value FROM alarm_tags WHERE alarm_id IN (?, ?)`,
		"delete": `DELETE FROM alarm_tags WHERE alarm_id IN (?, ?)`,
	} {
		if p := queryPlan(t, s, q, "a", "b"); !strings.Contains(p, "USING PRIMARY KEY (alarm_id=?)") || strings.Contains(p, "SCAN") {
			t.Errorf("%s tags: plan %q does not use the primary key", name, p)
		}
	}
}

// A tag page with other conditions walks at most sqlstore.TagWalk entries of its pair:
// short pages with a cursor, and every match once, in order.
func TestTagWalkCutsPages(t *testing.T) {
	storetest.TagWalkCutsPages(t, openTemp(t, nil), sqlstore.TagWalk)
}
