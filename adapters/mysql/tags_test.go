package mysql

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// A tag page walks alarm_tags_filter of the owner's first pair in id order (no
// filesort), to the page's end or bounded, checks the other pairs by the primary key of
// alarm_tags and joins the alarm by its own, from the top or a cursor, before the tables
// have statistics and after, on 1,000 alarms of three owners, a third of them tagged.
func TestTagPagePlans(t *testing.T) {
	s, as := seededStore(t, 1000, func(i int) domain.Alarm {
		a := newDueAlarm(t, []string{"o", "p", "q"}[i%3], `1`)
		if i%3 == 0 {
			a.Tags = map[string]string{"customer": []string{"42", "7"}[i%2], "plan": "pro", "region": "eu"}
		}
		return a
	})
	// Each walk: its pages, the key its plan must read each of the walk's own tables by,
	// the table it must read as a range (if any), and how many of a page's pairs the walk
	// stands for; the others, x1, x2, ..., are each checked by the primary key of
	// alarm_tags.
	walks := []struct {
		shapes  []storetest.TagPageShape
		page    func(f ports.ListFilter, after string, limit int) (string, []any)
		keys    map[string]string
		rangeOn string
		walked  int
	}{
		// The first pair's entries of alarm_tags_filter, in order; the alarm by its own key.
		{storetest.TagPageShapes, s.Engine.TagPage, map[string]string{"t": "alarm_tags_filter", "a": "PRIMARY"}, "", 1},
		// With other conditions the walk of the first pair is a range of
		// alarm_tags_filter bounded below by its TagWalk-th entry, read first, from the
		// index alone, as is the row of that entry's alarm, by PRIMARY.
		{storetest.WalkTagPageShapes, s.Engine.WalkTagPage,
			map[string]string{"t": "alarm_tags_filter", "e": "alarm_tags_filter", "a": "PRIMARY"}, "t", 1},
		// With a rare status the page walks the owner's alarms of it instead, and checks
		// every pair by the primary key of alarm_tags.
		{storetest.StatusTagPageShapes, s.Engine.StatusTagPage, map[string]string{"a": "alarms_owner_status_list"}, "", 0},
	}
	for _, stats := range []string{"no statistics", "analyzed"} {
		if stats == "analyzed" {
			mustExec(t, s.db, "ANALYZE TABLE alarms, alarm_tags")
		}
		for _, w := range walks {
			for _, c := range w.shapes {
				for _, after := range []string{"", as[500].ID} {
					what := fmt.Sprintf("%s, %s, cursor %t", stats, c.Name, after != "")
					q, args := w.page(c.F, after, 100)
					plan, keys := tagPagePlan(t, s, what, q, args)
					for table, key := range w.keys {
						if keys[table] != key {
							t.Errorf("%s: plan %v reads %s by %q, want %s", what, plan, table, keys[table], key)
						}
					}
					for _, r := range plan {
						if w.rangeOn != "" && r["table"] == w.rangeOn && r["type"] != "range" {
							t.Errorf("%s: %v does not walk a range", what, r)
						}
					}
					for i := 1; i <= len(c.F.Tags)-w.walked; i++ {
						if x := "x" + string(rune('0'+i)); keys[x] != "PRIMARY" {
							t.Errorf("%s: plan %v; want pair %d by PRIMARY", what, plan, i+w.walked)
						}
					}
				}
			}
		}
	}
}

// tagPagePlan is EXPLAIN of a tag page's q, failing t (naming the page what) where a
// step sorts or reads the whole of a table other than a derived one, and the keys each
// table of the plan is read by ("k1,k2" for a table read by two).
func tagPagePlan(t *testing.T, s *Store, what, q string, args []any) ([]map[string]string, map[string]string) {
	t.Helper()
	plan := explainRows(t, s.db, q, args...)
	keys := map[string]string{}
	for _, r := range plan {
		if keys[r["table"]] == "" {
			keys[r["table"]] = r["key"]
		} else if keys[r["table"]] != r["key"] {
			keys[r["table"]] += "," + r["key"]
		}
		if strings.Contains(r["Extra"], "filesort") || strings.Contains(r["Extra"], "temporary") ||
			(r["type"] == "ALL" && !strings.HasPrefix(r["table"], "<derived")) {
			t.Errorf("%s: %v sorts or scans", what, r)
		}
	}
	return plan, keys
}

// A tag page with other conditions walks at most sqlstore.TagWalk entries of its pair:
// short pages with a cursor, and every match once, in order; executed, the walk of a
// page over more non-matching entries reads TagWalk of them and no more.
func TestTagWalkCutsPages(t *testing.T) {
	s, _ := openTestStore(t, Options{})
	f := storetest.TagWalkCutsPages(t, s, sqlstore.TagWalk)
	q, args := s.Engine.WalkTagPage(f, "", 100)
	cols, rows := textRows(t, s.db, "ANALYZE "+q, args...)
	table, read, walked := slices.Index(cols, "table"), slices.Index(cols, "r_rows"), ""
	for _, r := range rows {
		if r[table].String == "t" {
			walked = r[read].String
		}
	}
	if want := strconv.Itoa(sqlstore.TagWalk) + ".00"; walked != want {
		t.Errorf("the cut page's walk read %q entries of alarm_tags_filter, want %s", walked, want)
	}
}
