package ui

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// nextLink is the alarms page's link to the next page.
var nextLink = regexp.MustCompile(`<a href="([^"]+)" rel="next">`)

// A tag filter whose matches lie far apart may show a page with none, which says so
// and links on; following the links shows every match, and the bulk form counts them
// all.
func TestSparseTagFilterPages(t *testing.T) {
	e := newEnv(t)
	now := time.Now().UTC()
	at := now.Add(time.Hour)
	n := 0
	alarm := func(label string) domain.Alarm {
		n++
		a, err := domain.NewAlarm(fmt.Sprintf("019a0000-0000-7000-8000-%012d", n), domain.Spec{Owner: "shop", Kind: domain.KindOnce,
			FireAt: &at, Label: label, Tags: map[string]string{"customer": "7"}}, now, domain.Defaults{MaxFailures: 3})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	// More of the tag's other alarms between the two matches than two pages' walks.
	as := []domain.Alarm{alarm("match-0")}
	for range 1100 {
		as = append(as, alarm("gap"))
	}
	as = append(as, alarm("match-1"))
	if err := e.store.CreateMany(e.ctx, as); err != nil {
		t.Fatal(err)
	}
	c := e.signIn(e.admin)
	path := "/ui/alarms?" + url.Values{"tag": {"customer:7"}, "label": {"match-"}}.Encode()
	var shown []string
	empty := false
	for range 10 {
		p := e.get(c, path)
		for _, label := range []string{"match-0", "match-1"} {
			if strings.Contains(p.body, label) {
				shown = append(shown, label)
			}
		}
		empty = empty || strings.Contains(p.body, "None on this page")
		m := nextLink.FindStringSubmatch(p.body)
		if m == nil {
			break
		}
		path = html.UnescapeString(m[1])
	}
	if strings.Join(shown, ",") != "match-1,match-0" || !empty {
		t.Errorf("pages showed %v (a page of none: %t); want match-1 then match-0, and a page of none between", shown, empty)
	}

	csrf := e.csrf(c, "/ui/alarms")
	form := url.Values{"csrf": {csrf}, "action": {"cancel"}, "scope": {"filter"}, "label": {"match-"}, "tag": {"customer:7"}}
	if r := e.post(c, "/ui/alarms/bulk", form); !strings.Contains(r.body, "This will cancel <strong>2 alarms</strong>") {
		t.Errorf("bulk cancel confirmation: %d %s", r.status, r.body)
	}
}
