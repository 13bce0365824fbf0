package postgres

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/adapters/internal/storetest"
)

// sqlLiterals is args as the SQL of EXECUTE's arguments.
func sqlLiterals(args []any) string {
	out := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = `'` + strings.ReplaceAll(v, `'`, `''`) + `'`
		case *time.Time:
			out[i] = `'` + v.Format(time.RFC3339Nano) + `'`
		default:
			out[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(out, ", ")
}

// A tag page's generic plan walks alarm_tags_filter backwards for the owner's first
// pair (in id order, no sort), to the page's end or bounded, checks the other pairs and
// joins the alarm by primary key, from the top or a cursor, on tables never analyzed; an
// alarm's tags are read by the primary key of alarm_tags.
func TestTagPageGenericPlans(t *testing.T) {
	s, _ := newTestStore(t, nil)
	for _, c := range storetest.TagPageShapes {
		for _, after := range []string{"", "000000010000"} {
			q, args := s.Engine.TagPage(c.F, after, 100)
			plan := explainGenericWith(t, s, q, "COSTS OFF", sqlLiterals(args))
			if !strings.Contains(plan, "Index Only Scan Backward using alarm_tags_filter on alarm_tags t") ||
				!strings.Contains(plan, "Index Scan using alarms_pkey on alarms a") ||
				sortNode.MatchString(plan) || strings.Contains(plan, "Seq Scan") {
				t.Errorf("%s, cursor %t: the page does not walk alarm_tags_filter in order:\n%s", c.Name, after != "", plan)
			}
			if n := len(c.F.Tags) - 1; strings.Count(plan, "using alarm_tags_pkey") != n {
				t.Errorf("%s, cursor %t: the other %d pairs are not checked by primary key:\n%s", c.Name, after != "", n, plan)
			}
		}
	}
	// With other conditions the walk of the first pair is bounded below by its
	// TagWalk-th entry, read from the index alone once (a materialized CTE, which the
	// range's start, the edge's flag and its filter read), and each other pair is checked by primary
	// key (for the row's hit, and in the filter).
	for _, c := range storetest.WalkTagPageShapes {
		for _, after := range []string{"", "000000010000"} {
			q, args := s.Engine.WalkTagPage(c.F, after, 100)
			plan := explainGenericWith(t, s, q, "COSTS OFF", sqlLiterals(args))
			if !boundedWalk.MatchString(plan) || strings.Count(plan, "Index Only Scan Backward using alarm_tags_filter on alarm_tags e") != 1 ||
				!strings.Contains(plan, "Index Scan using alarms_pkey on alarms a") ||
				sortNode.MatchString(plan) || strings.Contains(plan, "Seq Scan") {
				t.Errorf("%s, cursor %t: the page does not walk a bounded range of alarm_tags_filter in order:\n%s", c.Name, after != "", plan)
			}
			if n := len(c.F.Tags) - 1; strings.Count(plan, "using alarm_tags_pkey") != 2*n {
				t.Errorf("%s, cursor %t: the other %d pairs are not checked by primary key:\n%s", c.Name, after != "", n, plan)
			}
		}
	}
	// With a rare status the page walks the owner's alarms of it backwards instead, and
	// checks every pair by the primary key of alarm_tags.
	for _, c := range storetest.StatusTagPageShapes {
		for _, after := range []string{"", "000000010000"} {
			q, args := s.Engine.StatusTagPage(c.F, after, 100)
			plan := explainGenericWith(t, s, q, "COSTS OFF", sqlLiterals(args))
			if !strings.Contains(plan, "Index Scan Backward using alarms_owner_status_id_idx on alarms a") ||
				sortNode.MatchString(plan) || strings.Contains(plan, "Seq Scan") {
				t.Errorf("%s, cursor %t: the page does not walk alarms_owner_status_id_idx in order:\n%s", c.Name, after != "", plan)
			}
			if n := len(c.F.Tags); strings.Count(plan, "using alarm_tags_pkey") != n {
				t.Errorf("%s, cursor %t: the %d pairs are not checked by primary key:\n%s", c.Name, after != "", n, plan)
			}
		}
	}
	plan := explainGenericWith(t, s, `SELECT alarm_id, tag_key, tag_value FROM alarm_tags WHERE alarm_id IN ($1, $2)`, "COSTS OFF", `'a', 'b'`)
	if !strings.Contains(plan, "alarm_tags_pkey") || strings.Contains(plan, "Seq Scan") {
		t.Errorf("tags of alarms: plan does not use the primary key:\n%s", plan)
	}
}

// boundedWalk is the walk of a pair's index from the cursor down to the bound read
// from it (the TagWalk-th entry, or the empty string when fewer are left).
var boundedWalk = regexp.MustCompile(`Index Only Scan Backward using alarm_tags_filter on alarm_tags t\n\s+Index Cond: \(\(owner = \$\d+\) AND \(tag_key = \$\d+\) AND \(tag_value = \$\d+\)( AND \(alarm_id < \$\d+\))? AND \(alarm_id >= \$\d+\)\)`)

// A tag page with other conditions walks at most sqlstore.TagWalk entries of its pair:
// short pages with a cursor, and every match once, in order; executed, the walk of a
// page over more non-matching entries reads TagWalk of them and no more.
func TestTagWalkCutsPages(t *testing.T) {
	s, _ := newTestStore(t, nil)
	f := storetest.TagWalkCutsPages(t, s, sqlstore.TagWalk)
	q, args := s.Engine.WalkTagPage(f, "", 100)
	plan := explainGenericWith(t, s, q, "ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF", sqlLiterals(args))
	want := fmt.Sprintf("Index Only Scan Backward using alarm_tags_filter on alarm_tags t (actual rows=%d loops=1)", sqlstore.TagWalk)
	if !strings.Contains(plan, want) {
		t.Errorf("the cut page's walk does not read %d entries once:\n%s", sqlstore.TagWalk, plan)
	}
}
