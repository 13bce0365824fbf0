package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

type calendarBody struct {
	Calendar struct {
		Name            string   `json:"name"`
		Timezone        string   `json:"timezone"`
		ExcludeDates    []string `json:"exclude_dates"`
		ExcludeWeekdays []int    `json:"exclude_weekdays"`
		ExcludeRanges   []struct {
			From string `json:"from"`
			To   string `json:"to"`
		} `json:"exclude_ranges"`
	} `json:"calendar"`
}

// A calendar is put, read, listed, replaced and deleted by its owner only; bad input
// is a 400 naming the field.
func TestCalendarRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.as(e.alice, "PUT", "/v1/calendars/holidays",
		`{"timezone":"Europe/Berlin","exclude_dates":["2026-12-26","2026-12-25","2026-12-25"],"exclude_weekdays":[6,0],
		  "exclude_ranges":[{"from":"2026-12-28","to":"2026-12-31"}]}`)
	var got calendarBody
	if res.status != http.StatusOK || json.Unmarshal(res.body, &got) != nil {
		t.Fatalf("PUT: %d %s", res.status, res.body)
	}
	c := got.Calendar
	if c.Name != "holidays" || c.Timezone != "Europe/Berlin" || strings.Join(c.ExcludeDates, ",") != "2026-12-25,2026-12-26" ||
		fmt.Sprint(c.ExcludeWeekdays) != "[0 6]" || len(c.ExcludeRanges) != 1 || c.ExcludeRanges[0].To != "2026-12-31" {
		t.Errorf("calendar as stored: %+v", c)
	}
	if res := e.as(e.alice, "GET", "/v1/calendars/holidays", ""); res.status != http.StatusOK {
		t.Errorf("GET: %d %s", res.status, res.body)
	}
	expectError(t, e.as(e.bob, "GET", "/v1/calendars/holidays", ""), http.StatusNotFound, "not_found", "")
	if res := e.as(e.bob, "GET", "/v1/calendars", ""); res.status != http.StatusOK || string(res.body) != `{"calendars":[]}`+"\n" {
		t.Errorf("bob's list: %d %s", res.status, res.body)
	}
	// Replaced whole: what the PUT leaves out is empty.
	res = e.as(e.alice, "PUT", "/v1/calendars/holidays", `{"timezone":"UTC"}`)
	if res.status != http.StatusOK || !strings.Contains(string(res.body), `"exclude_dates":[]`) {
		t.Errorf("replace: %d %s", res.status, res.body)
	}
	for _, tc := range []struct{ path, body, field string }{
		{"/v1/calendars/Holidays", `{"timezone":"UTC"}`, "name"},
		{"/v1/calendars/h", `{"timezone":"Mars/Base"}`, "timezone"},
		{"/v1/calendars/h", `{"timezone":"UTC","exclude_dates":["2026-12-25","2026-13-01"]}`, "exclude_dates[1]"},
		{"/v1/calendars/h", `{"timezone":"UTC","exclude_weekdays":[7]}`, "exclude_weekdays[0]"},
		{"/v1/calendars/h", `{"timezone":"UTC","exclude_ranges":[{"from":"2026-12-02","to":"2026-12-01"}]}`, "exclude_ranges[0].to"},
	} {
		expectError(t, e.as(e.alice, "PUT", tc.path, tc.body), http.StatusBadRequest, "invalid_argument", tc.field)
	}
	expectError(t, e.as(e.alice, "PUT", "/v1/calendars/h", `{"timezone":"UTC","holidays":[]}`), http.StatusBadRequest, "invalid_request", "holidays")
	if res := e.as(e.alice, "DELETE", "/v1/calendars/holidays", ""); res.status != http.StatusNoContent {
		t.Errorf("DELETE: %d %s", res.status, res.body)
	}
	expectError(t, e.as(e.alice, "DELETE", "/v1/calendars/holidays", ""), http.StatusNotFound, "not_found", "")
}

// A series naming a calendar skips its days from its first occurrence, in its view,
// its upcoming occurrences and a preview; the calendar cannot be deleted while the
// series uses it.
func TestSeriesWithCalendars(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	expectError(t, e.as(e.alice, "POST", "/v1/alarms", `{"kind":"cron","cron_expr":"0 9 * * *","exclude_calendars":["nope"]}`),
		http.StatusBadRequest, "invalid_argument", "exclude_calendars[0]")
	e.as(e.alice, "PUT", "/v1/calendars/always", `{"timezone":"UTC","exclude_weekdays":[0,1,2,3,4,5,6]}`)
	expectError(t, e.as(e.alice, "POST", "/v1/alarms", `{"kind":"cron","cron_expr":"0 9 * * *","exclude_calendars":["always"]}`),
		http.StatusBadRequest, "invalid_argument", "exclude_calendars")

	// Tomorrow and the day after are excluded, in the calendar's own zone (UTC here).
	now := time.Now().UTC()
	d1, d2 := now.AddDate(0, 0, 1).Format("2006-01-02"), now.AddDate(0, 0, 2).Format("2006-01-02")
	if res := e.as(e.alice, "PUT", "/v1/calendars/soon", fmt.Sprintf(`{"timezone":"UTC","exclude_ranges":[{"from":%q,"to":%q}]}`, d1, d2)); res.status != http.StatusOK {
		t.Fatalf("PUT: %d %s", res.status, res.body)
	}
	res := e.as(e.alice, "POST", "/v1/alarms", `{"kind":"cron","cron_expr":"0 0 * * *","timezone":"UTC","exclude_calendars":["soon"]}`)
	if res.status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.status, res.body)
	}
	var created struct {
		Alarm struct {
			ID               string   `json:"id"`
			ScheduledFor     string   `json:"scheduled_for"`
			ExcludeCalendars []string `json:"exclude_calendars"`
		} `json:"alarm"`
	}
	if err := json.Unmarshal(res.body, &created); err != nil {
		t.Fatal(err)
	}
	a := created.Alarm
	want := now.AddDate(0, 0, 3).Format("2006-01-02") + "T00:00:00Z"
	if a.ScheduledFor != want || strings.Join(a.ExcludeCalendars, ",") != "soon" {
		t.Errorf("the series is at %s naming %v; want %s naming soon", a.ScheduledFor, a.ExcludeCalendars, want)
	}
	up := e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/upcoming?count=2", "")
	if !strings.Contains(string(up.body), want) || strings.Contains(string(up.body), d2+"T") {
		t.Errorf("upcoming: %s", up.body)
	}
	pv := e.as(e.alice, "POST", "/v1/schedules/preview", `{"cron_expr":"0 0 * * *","count":1,"exclude_calendars":["soon"]}`)
	if pv.status != http.StatusOK || !strings.Contains(string(pv.body), want) {
		t.Errorf("preview: %d %s", pv.status, pv.body)
	}
	expectError(t, e.as(e.alice, "POST", "/v1/schedules/preview", `{"cron_expr":"0 0 * * *","exclude_calendars":["nope"]}`),
		http.StatusBadRequest, "invalid_argument", "exclude_calendars[0]")

	ev := expectError(t, e.as(e.alice, "DELETE", "/v1/calendars/soon", ""), http.StatusConflict, "conflict", "name")
	if !strings.Contains(ev.Message, a.ID) {
		t.Errorf("the refusal names no series: %s", ev.Message)
	}
	expectError(t, e.as(e.alice, "PATCH", "/v1/alarms/"+a.ID, `{"exclude_calendars":["always"]}`), http.StatusBadRequest, "invalid_argument", "exclude_calendars")
	p := e.as(e.alice, "PATCH", "/v1/alarms/"+a.ID, `{"exclude_calendars":null}`)
	if p.status != http.StatusOK || !strings.Contains(string(p.body), `"exclude_calendars":[]`) {
		t.Fatalf("PATCH clearing: %d %s", p.status, p.body)
	}
	if res := e.as(e.alice, "DELETE", "/v1/calendars/soon", ""); res.status != http.StatusNoContent {
		t.Errorf("DELETE once no series uses it: %d %s", res.status, res.body)
	}
}

// An owner at its limit of calendars gets 429 quota_exceeded naming "name" and the
// limit for a new one, without Retry-After (only deleting one makes room); replacing
// one of its own still works, another owner is not held by it, and a delete makes
// room. A calendar over the limit of entries is a 400 naming the list that passes it.
func TestCalendarLimits(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, envOptions{maxCalendars: 3, maxCalendarEntries: 4})
	for _, name := range []string{"a", "b", "c"} {
		if res := e.as(e.alice, "PUT", "/v1/calendars/"+name, `{"timezone":"UTC"}`); res.status != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", name, res.status, res.body)
		}
	}
	res := e.as(e.alice, "PUT", "/v1/calendars/d", `{"timezone":"UTC"}`)
	ev := expectError(t, res, http.StatusTooManyRequests, "quota_exceeded", "name")
	if !strings.Contains(ev.Message, "3 calendars") || res.header.Get("Retry-After") != "" {
		t.Errorf("the refusal says %q with Retry-After %q; want the limit, and no Retry-After", ev.Message, res.header.Get("Retry-After"))
	}
	if res := e.as(e.alice, "GET", "/v1/calendars/d", ""); res.status != http.StatusNotFound {
		t.Errorf("the refused calendar was stored: %d %s", res.status, res.body)
	}
	if res := e.as(e.alice, "PUT", "/v1/calendars/c", `{"timezone":"UTC","exclude_weekdays":[0]}`); res.status != http.StatusOK {
		t.Errorf("replacing one at the limit: %d %s", res.status, res.body)
	}
	if res := e.as(e.bob, "PUT", "/v1/calendars/d", `{"timezone":"UTC"}`); res.status != http.StatusOK {
		t.Errorf("another owner's: %d %s", res.status, res.body)
	}
	e.as(e.alice, "DELETE", "/v1/calendars/a", "")
	if res := e.as(e.alice, "PUT", "/v1/calendars/d", `{"timezone":"UTC"}`); res.status != http.StatusOK {
		t.Errorf("a new one after a delete: %d %s", res.status, res.body)
	}

	for _, tc := range []struct{ body, field string }{
		{`{"timezone":"UTC","exclude_dates":["2026-01-01","2026-01-02","2026-01-03","2026-01-04","2026-01-05"]}`, "exclude_dates"},
		{`{"timezone":"UTC","exclude_dates":["2026-01-01","2026-01-02"],"exclude_weekdays":[0,0,0]}`, "exclude_weekdays"},
		{`{"timezone":"UTC","exclude_dates":["2026-01-01"],"exclude_ranges":[{"from":"2026-02-01","to":"2026-02-02"},{"from":"2026-03-01","to":"2026-03-02"},{"from":"2026-04-01","to":"2026-04-02"},{"from":"2026-05-01","to":"2026-05-02"}]}`, "exclude_ranges"},
	} {
		ev := expectError(t, e.as(e.bob, "PUT", "/v1/calendars/big", tc.body), http.StatusBadRequest, "invalid_argument", tc.field)
		if !strings.Contains(ev.Message, "at most 4 entries") {
			t.Errorf("the refusal of %s says %q; want the limit", tc.field, ev.Message)
		}
	}
	if res := e.as(e.bob, "PUT", "/v1/calendars/big", `{"timezone":"UTC","exclude_dates":["2026-01-01"],"exclude_weekdays":[1,2],"exclude_ranges":[{"from":"2026-02-01","to":"2026-02-02"}]}`); res.status != http.StatusOK {
		t.Errorf("a calendar at the limit of entries: %d %s", res.status, res.body)
	}
}
