package contract

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var listCases = []testCase{
	{"NewestFirst", testListNewestFirst},
	{"Paging", testListPaging},
	{"PagingIgnoresNewerAlarms", testListPagingIgnoresNewer},
	{"StatusFilter", testListStatusFilter},
	{"DefaultLimit", testListDefaultLimit},
	{"MaxLimit", testListMaxLimit},
	{"BadCursor", testListBadCursor},
	{"Empty", testListEmpty},
	{"LargeAlarmsEndAPage", testListLargeAlarmsEndAPage},
}

// createN creates n once alarms for owner and returns them in creation order.
func (e *env) createN(owner string, n int) []domain.Alarm {
	e.t.Helper()
	out := make([]domain.Alarm, n)
	for i := range out {
		out[i] = e.create(e.onceIn(owner, time.Hour))
	}
	return out
}

// wantIDs fails unless got lists exactly the ids of want, in order.
func wantIDs(t *testing.T, what string, got, want []domain.Alarm) {
	t.Helper()
	g, w := alarmIDs(got), alarmIDs(want)
	if len(g) != len(w) {
		t.Errorf("%s: %d alarms, want %d", what, len(g), len(w))
		return
	}
	for i := range g {
		if g[i] != w[i] {
			t.Errorf("%s: position %d is %s, want %s (got %v, want %v)", what, i, g[i], w[i], g, w)
			return
		}
	}
}

// List returns the newest alarm first (ids are time-ordered), with every field.
func testListNewestFirst(t *testing.T, e *env) {
	created := e.createN(alice, 5)
	got, next := e.list(alice, ports.ListFilter{})
	if next != "" {
		t.Errorf("cursor = %q on the only page, want \"\"", next)
	}
	wantIDs(t, "List", got, reversed(created))
	for i, a := range reversed(created) {
		if i < len(got) {
			e.wantAlarm("listed alarm", got[i], a)
		}
	}
}

// A cursor continues exactly after the last alarm returned: the pages together are
// every alarm once, in order, and the last page has an empty cursor.
func testListPaging(t *testing.T, e *env) {
	created := e.createN(alice, 25)
	e.createN(bob, 3) // must not show up in alice's pages

	var pages [][]domain.Alarm
	cursor := ""
	for {
		as, next := e.list(alice, ports.ListFilter{Limit: 10, Cursor: cursor})
		pages = append(pages, as)
		if next == "" || len(pages) > 5 {
			break
		}
		cursor = next
	}
	if len(pages) != 3 || len(pages[0]) != 10 || len(pages[1]) != 10 || len(pages[2]) != 5 {
		sizes := []int{}
		for _, p := range pages {
			sizes = append(sizes, len(p))
		}
		t.Errorf("page sizes = %v, want [10 10 5] with an empty cursor after the third", sizes)
	}
	var all []domain.Alarm
	for _, p := range pages {
		all = append(all, p...)
	}
	wantIDs(t, "pages joined", all, reversed(created))
}

// Alarms created while a client pages are newer than its cursor: they do not appear
// on later pages, and nothing older is skipped or repeated.
func testListPagingIgnoresNewer(t *testing.T, e *env) {
	created := e.createN(alice, 6)
	first, cursor := e.list(alice, ports.ListFilter{Limit: 2})
	if cursor == "" {
		t.Fatal("first page of 2 out of 6 has an empty cursor")
	}
	e.createN(alice, 3)
	var rest []domain.Alarm
	for cursor != "" {
		var as []domain.Alarm
		as, cursor = e.list(alice, ports.ListFilter{Limit: 2, Cursor: cursor})
		rest = append(rest, as...)
	}
	wantIDs(t, "pages joined", append(first, rest...), reversed(created))
}

// Status narrows the list, also across pages; "" lists every status.
func testListStatusFilter(t *testing.T, e *env) {
	var active, cancelled, paused []domain.Alarm
	for i := range 7 {
		switch i % 3 {
		case 0:
			a := e.create(e.onceIn(alice, time.Hour))
			cancelled = append(cancelled, e.mutate(alice, a.ID, cancelFn))
		case 1:
			a := e.create(cronSpec(alice, "@hourly", ""))
			paused = append(paused, e.mutate(alice, a.ID, pauseFn))
		default:
			active = append(active, e.create(e.onceIn(alice, time.Hour)))
		}
	}
	for _, c := range []struct {
		status domain.Status
		want   []domain.Alarm
	}{
		{domain.StatusActive, active},
		{domain.StatusCancelled, cancelled},
		{domain.StatusPaused, paused},
		{domain.StatusFired, nil},
	} {
		for _, limit := range []int{0, 2} {
			got := e.listAll(alice, c.status, limit)
			wantIDs(t, "List status="+string(c.status), got, reversed(c.want))
			for _, a := range got {
				if a.Status != c.status {
					t.Errorf("List status=%s returned %s with status %s", c.status, a.ID, a.Status)
				}
			}
		}
	}
	if all := e.listAll(alice, "", 0); len(all) != 7 {
		t.Errorf("List without a status: %d alarms, want 7", len(all))
	}
}

// A limit of zero or less means DefaultListLimit.
func testListDefaultLimit(t *testing.T, e *env) {
	created := e.createN(alice, ports.DefaultListLimit+1)
	for _, limit := range []int{0, -5} {
		page, next := e.list(alice, ports.ListFilter{Limit: limit})
		if len(page) != ports.DefaultListLimit || next == "" {
			t.Errorf("List limit=%d: %d alarms, cursor %q; want %d and a cursor", limit, len(page), next, ports.DefaultListLimit)
			continue
		}
		rest, last := e.list(alice, ports.ListFilter{Limit: limit, Cursor: next})
		if last != "" {
			t.Errorf("second page cursor = %q, want \"\"", last)
		}
		wantIDs(t, "both pages", append(page, rest...), reversed(created))
	}
}

// No page is larger than MaxListLimit, however much is asked for, and paging still
// reaches every alarm.
func testListMaxLimit(t *testing.T, e *env) {
	e.createN(alice, ports.MaxListLimit+1)
	page, next := e.list(alice, ports.ListFilter{Limit: 2 * ports.MaxListLimit})
	if len(page) == 0 || len(page) > ports.MaxListLimit {
		t.Errorf("List limit=%d returned %d alarms, want 1..%d", 2*ports.MaxListLimit, len(page), ports.MaxListLimit)
	}
	if next == "" {
		t.Errorf("List returned %d of %d alarms with an empty cursor", len(page), ports.MaxListLimit+1)
	}
	all := e.listAll(alice, "", 2*ports.MaxListLimit)
	seen := map[string]bool{}
	for _, a := range all {
		seen[a.ID] = true
	}
	if len(all) != ports.MaxListLimit+1 || len(seen) != len(all) {
		t.Errorf("paging with limit %d: %d alarms (%d distinct), want %d", 2*ports.MaxListLimit, len(all), len(seen), ports.MaxListLimit+1)
	}
}

// A cursor the store did not make is a *domain.ValidationError on "cursor".
func testListBadCursor(t *testing.T, e *env) {
	e.createN(alice, 2)
	for _, cursor := range []string{"not a cursor", "%%%", "\x00\xff"} {
		_, _, err := e.store.List(e.ctx, ports.ListFilter{Scope: ports.OwnedBy(alice), Cursor: cursor})
		var ve *domain.ValidationError
		if !errors.As(err, &ve) || ve.Field != "cursor" {
			t.Errorf("List cursor=%q: error = %v, want a *domain.ValidationError on \"cursor\"", cursor, err)
		}
	}
}

// An owner without alarms gets an empty page, an empty cursor and no error.
func testListEmpty(t *testing.T, e *env) {
	e.createN(bob, 1)
	for _, status := range []domain.Status{"", domain.StatusActive} {
		as, next, err := e.store.List(e.ctx, ports.ListFilter{Scope: ports.OwnedBy(alice), Status: status})
		if err != nil || len(as) != 0 || next != "" {
			t.Errorf("List status=%q for an owner with nothing = (%d alarms, %q, %v), want (0, \"\", nil)", status, len(as), next, err)
		}
	}
}

// A page ends, with a cursor, once its alarms carry more than MaxListBytes of payloads
// and wake messages, whatever its limit: never more than that and one alarm more. The
// pages together still hold every alarm once, newest first: an owner's page, a tagged
// one and an operator's across owners alike.
func testListLargeAlarmsEndAPage(t *testing.T, e *env) {
	payload := json.RawMessage(`"` + strings.Repeat("x", domain.MaxPayloadBytes-2) + `"`)
	n := ports.MaxListBytes/domain.MaxPayloadBytes + 8
	created := make([]domain.Alarm, n)
	for i := range created {
		s := e.onceIn(alice, time.Hour)
		s.Payload, s.Tags = payload, map[string]string{"size": "large"}
		created[i] = e.create(s)
	}
	for what, f := range map[string]ports.ListFilter{
		"an owner's page":    {Scope: ports.OwnedBy(alice)},
		"a tagged page":      {Scope: ports.OwnedBy(alice), Status: domain.StatusActive, Tags: []domain.TagFilter{{Key: "size", Value: "large"}}},
		"an operator's page": {Scope: ports.AnyOwner, LabelPrefix: "once"},
	} {
		var all []domain.Alarm
		f.Limit = ports.MaxListLimit
		for pages := 0; ; pages++ {
			if pages > n {
				t.Fatalf("%s: List never returned an empty cursor", what)
			}
			page, next, err := e.store.List(e.ctx, f)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			held := 0
			for _, a := range page[:max(len(page)-1, 0)] {
				held += len(a.Payload) + len(a.WakeMessage)
			}
			if held > ports.MaxListBytes {
				t.Errorf("%s: a page of %d alarms holds %d bytes of payloads before its last, over MaxListBytes (%d)", what, len(page), held, ports.MaxListBytes)
			}
			if pages == 0 && (next == "" || len(page) >= n) {
				t.Errorf("%s: the first page of %d alarms of %d KiB: %d alarms, cursor %q; want it ended early, with a cursor",
					what, n, domain.MaxPayloadBytes>>10, len(page), next)
			}
			all = append(all, page...)
			if next == "" {
				break
			}
			f.Cursor = next
		}
		wantIDs(t, what+", every page", all, reversed(created))
	}
}
