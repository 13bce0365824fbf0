package api_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
)

type listView struct {
	Alarms     []alarmView `json:"alarms"`
	NextCursor string      `json:"next_cursor"`
}

func (e *env) list(token, query string) listView {
	e.t.Helper()
	res := e.as(token, "GET", "/v1/alarms"+query, "")
	if res.status != http.StatusOK {
		e.t.Fatalf("GET /v1/alarms%s: %d %s", query, res.status, res.body)
	}
	var l listView
	decodeStrict(e.t, res, &l)
	return l
}

func ids(alarms []alarmView) []string {
	out := make([]string, len(alarms))
	for i, a := range alarms {
		out[i] = a.ID
	}
	return out
}

func TestListEmpty(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.as(e.alice, "GET", "/v1/alarms", "")
	if string(res.body) != "{\"alarms\":[],\"next_cursor\":\"\"}\n" {
		t.Errorf("empty list = %q", res.body)
	}
}

func TestListPagesNewestFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var created []string
	for range 5 {
		created = append(created, e.create(e.alice, onceIn60s).ID)
	}
	e.create(e.bob, onceIn60s) // never in alice's pages
	slices.Reverse(created)

	var seen []string
	cursor := ""
	for page := 0; ; page++ {
		q := "?limit=2"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		l := e.list(e.alice, q)
		if len(l.Alarms) > 2 {
			t.Fatalf("page %d has %d alarms, over the limit of 2", page, len(l.Alarms))
		}
		seen = append(seen, ids(l.Alarms)...)
		if l.NextCursor == "" {
			break
		}
		if page > 5 {
			t.Fatal("paging does not end")
		}
		cursor = l.NextCursor
	}
	if !slices.Equal(seen, created) {
		t.Errorf("pages gave %v, want newest first %v", seen, created)
	}
	if all := e.list(e.alice, ""); !slices.Equal(ids(all.Alarms), created) || all.NextCursor != "" {
		t.Errorf("default page = %v (cursor %q), want all %v", ids(all.Alarms), all.NextCursor, created)
	}
	if l := e.list(e.alice, "?limit=500"); len(l.Alarms) != 5 {
		t.Errorf("limit=500 gave %d alarms, want 5", len(l.Alarms))
	}
}

func TestListStatusFilter(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	paused := e.create(e.alice, weekdays)
	active := e.create(e.alice, weekdays)
	cancelled := e.create(e.alice, onceIn60s)
	expectAlarm(t, e.as(e.alice, "POST", "/v1/alarms/"+paused.ID+"/pause", ""))
	expectAlarm(t, e.as(e.alice, "DELETE", "/v1/alarms/"+cancelled.ID, ""))

	for status, want := range map[string][]string{
		"active":    {active.ID},
		"paused":    {paused.ID},
		"cancelled": {cancelled.ID},
		"fired":     {},
		"failed":    {},
		"":          {cancelled.ID, active.ID, paused.ID},
	} {
		l := e.list(e.alice, "?status="+status)
		if !slices.Equal(ids(l.Alarms), want) {
			t.Errorf("status=%s: %v, want %v", status, ids(l.Alarms), want)
		}
		for _, a := range l.Alarms {
			if status != "" && a.Status != status {
				t.Errorf("status=%s listed a %s alarm", status, a.Status)
			}
		}
	}
}

func TestListRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct{ query, field string }{
		{"?limit=0", "limit"},
		{"?limit=-1", "limit"},
		{"?limit=501", "limit"},
		{"?limit=abc", "limit"},
		{"?limit=1.5", "limit"},
		{"?limit=99999999999999999999", "limit"},
		{"?status=done", "status"},
		{"?status=ACTIVE", "status"},
		{"?cursor=!!not-a-cursor!!", "cursor"},
	} {
		t.Run(c.query, func(t *testing.T) {
			expectError(t, e.as(e.alice, "GET", "/v1/alarms"+c.query, ""), http.StatusBadRequest, "invalid_argument", c.field)
		})
	}
}
