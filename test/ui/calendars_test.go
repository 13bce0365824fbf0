package ui

import (
	"net/http"
	"strings"
	"testing"
)

// The calendars page lists an owner's calendars; a series' page names its calendars,
// each a link to it.
func TestCalendarsPageAndSeries(t *testing.T) {
	e := newEnv(t)
	req, _ := http.NewRequestWithContext(e.ctx, "PUT", e.srv.URL+"/v1/calendars/holidays",
		strings.NewReader(`{"timezone":"Europe/Berlin","exclude_dates":["2026-12-25"],"exclude_weekdays":[0]}`))
	req.Header.Set("Authorization", "Bearer "+e.owner)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %v %v", res, err)
	}
	res.Body.Close()
	id := e.create(`{"kind":"cron","cron_expr":"0 9 * * 1-5","timezone":"Europe/Paris","exclude_calendars":["holidays"]}`)
	c := e.signIn(e.reader)

	if p := e.get(c, "/ui/calendars"); p.status != http.StatusOK || !strings.Contains(p.body, "give one") {
		t.Errorf("the page without an owner: %d", p.status)
	}
	p := e.get(c, "/ui/calendars?owner=shop")
	for _, want := range []string{"holidays", "Europe/Berlin", "2026-12-25", "Sunday"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the calendars page lacks %q", want)
		}
	}
	if s := e.get(c, "/ui/alarms/"+id); !strings.Contains(s.body, `href="/ui/calendars?owner=shop#holidays"`) {
		t.Error("the series' page does not link its calendar")
	}
}
