package api_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// Tags are kept from the create, shown on every view, replaced whole by a patch and
// cleared by null or {}; each refusal names its field.
func TestTagsOnCreatePatchAndViews(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, `{"kind":"cron","cron_expr":"@daily","tags":{"customer":"42","plan":"pro"}}`)
	want := map[string]string{"customer": "42", "plan": "pro"}
	if !maps.Equal(a.Tags, want) {
		t.Errorf("created: tags %v, want %v", a.Tags, want)
	}
	if got := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID, "")); !maps.Equal(got.Tags, want) {
		t.Errorf("GET: tags %v", got.Tags)
	}
	if got := decodeAdminAlarm(t, e.as(e.ops, "GET", "/admin/v1/alarms/"+a.ID, "")); !maps.Equal(got.Tags, want) {
		t.Errorf("admin GET (tags are not redacted): tags %v", got.Tags)
	}
	plain := e.create(e.alice, `{"kind":"once","delay_seconds":60}`)
	if plain.Tags == nil || len(plain.Tags) != 0 {
		t.Errorf("an alarm without tags shows %v, want {}", plain.Tags)
	}
	path := "/v1/alarms/" + a.ID
	if u := expectAlarm(t, e.as(e.alice, "PATCH", path, `{"tags":{"customer":"43"}}`)); !maps.Equal(u.Tags, map[string]string{"customer": "43"}) {
		t.Errorf("patched: tags %v", u.Tags)
	}
	if u := expectAlarm(t, e.as(e.alice, "PATCH", path, `{"label":"x"}`)); !maps.Equal(u.Tags, map[string]string{"customer": "43"}) {
		t.Errorf("a label patch changed the tags: %v", u.Tags)
	}
	for _, clear := range []string{`{"tags":null}`, `{"tags":{}}`} {
		expectAlarm(t, e.as(e.alice, "PATCH", path, `{"tags":{"a":"b"}}`))
		if u := expectAlarm(t, e.as(e.alice, "PATCH", path, clear)); len(u.Tags) != 0 {
			t.Errorf("%s: tags %v, want none", clear, u.Tags)
		}
	}

	many := map[string]string{}
	for i := range 17 {
		many["k"+strings.Repeat("x", i)] = "v"
	}
	manyJSON := `{`
	for _, k := range slices.Sorted(maps.Keys(many)) {
		manyJSON += `"` + k + `":"v",`
	}
	manyJSON = strings.TrimSuffix(manyJSON, ",") + `}`
	for _, tc := range []struct{ tags, code, field string }{
		{`{"Customer":"42"}`, "invalid_argument", "tags"},
		{`{"":"42"}`, "invalid_argument", "tags"},
		{`{"` + strings.Repeat("k", 65) + `":"1"}`, "invalid_argument", "tags"},
		{`{"customer":"` + strings.Repeat("é", 201) + `"}`, "invalid_argument", "tags.customer"},
		{`{"customer":"a\u0000b"}`, "invalid_argument", "tags.customer"},
		{manyJSON, "invalid_argument", "tags"},
		{`{"customer":42}`, "invalid_request", "tags"},
		{`["customer"]`, "invalid_request", "tags"},
	} {
		expectError(t, e.as(e.alice, "POST", "/v1/alarms", `{"kind":"once","delay_seconds":60,"tags":`+tc.tags+`}`), http.StatusBadRequest, tc.code, tc.field)
		expectError(t, e.as(e.alice, "PATCH", path, `{"tags":`+tc.tags+`}`), http.StatusBadRequest, tc.code, tc.field)
	}
	// 200 characters (not bytes) is within the limit.
	expectAlarm(t, e.as(e.alice, "PATCH", path, `{"tags":{"customer":"`+strings.Repeat("é", 200)+`"}}`))

	// The batch takes tags per item, and refuses one item alone.
	res := e.as(e.alice, "POST", "/v1/alarms/batch", `{"alarms":[{"kind":"once","delay_seconds":60,"tags":{"customer":"7"}},{"kind":"once","delay_seconds":60,"tags":{"BAD":"1"}}]}`)
	if res.status != http.StatusOK || !strings.Contains(string(res.body), `"tags":{"customer":"7"}`) || !strings.Contains(string(res.body), `"field":"tags"`) {
		t.Errorf("batch: %d %s", res.status, res.body)
	}
}

// ?tag= narrows both lists to alarms carrying every pair, with the status filter and
// pages; it never shows another owner's alarms.
func TestTagFilterOnLists(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, `{"kind":"once","delay_seconds":60,"tags":{"customer":"42","plan":"pro"}}`)
	b := e.create(e.alice, `{"kind":"once","delay_seconds":60,"tags":{"customer":"42","plan":"free"}}`)
	c := e.create(e.alice, `{"kind":"once","delay_seconds":60,"tags":{"customer":"42","plan":"pro","url":"http://x:1"}}`)
	bob := e.create(e.bob, `{"kind":"once","delay_seconds":60,"tags":{"customer":"42","plan":"pro"}}`)
	expectAlarm(t, e.act(e.alice, "cancel", b.ID))

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"?tag=customer:42", []string{c.ID, b.ID, a.ID}},
		{"?tag=customer:42&tag=plan:pro", []string{c.ID, a.ID}},
		{"?tag=customer:42&status=cancelled", []string{b.ID}},
		{"?tag=url:" + url.QueryEscape("http://x:1"), []string{c.ID}},
		{"?tag=customer:7", []string{}},
	} {
		if got := ids(e.list(e.alice, tc.query).Alarms); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.query, got, tc.want)
		}
	}
	first := e.list(e.alice, "?tag=customer:42&limit=2")
	second := e.list(e.alice, "?tag=customer:42&limit=2&cursor="+url.QueryEscape(first.NextCursor))
	if got := append(ids(first.Alarms), ids(second.Alarms)...); !slices.Equal(got, []string{c.ID, b.ID, a.ID}) || second.NextCursor != "" {
		t.Errorf("pages: %v then cursor %q", got, second.NextCursor)
	}
	all, _ := decodeAdminList(t, e.as(e.ops, "GET", "/admin/v1/alarms?tag=customer:42&tag=plan:pro", ""))
	if got := adminIDs(all); !slices.Equal(got, []string{bob.ID, c.ID, a.ID}) {
		t.Errorf("admin list: %v", got)
	}
	bobs, _ := decodeAdminList(t, e.as(e.ops, "GET", "/admin/v1/alarms?owner=bob&tag=customer:42", ""))
	if got := adminIDs(bobs); !slices.Equal(got, []string{bob.ID}) {
		t.Errorf("admin list of bob: %v", got)
	}
	for _, q := range []string{"?tag=customer", "?tag=Customer:42", "?tag=a:1&tag=a:2", "?tag=:1"} {
		expectError(t, e.as(e.alice, "GET", "/v1/alarms"+q, ""), http.StatusBadRequest, "invalid_argument", "tag")
	}
}

// label_prefix combines with tag (and status) on both lists: every filter applies.
func TestLabelPrefixWithTags(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, `{"kind":"once","delay_seconds":60,"label":"invoice 1","tags":{"customer":"42"}}`)
	e.create(e.alice, `{"kind":"once","delay_seconds":60,"label":"reminder","tags":{"customer":"42"}}`)
	c := e.create(e.alice, `{"kind":"once","delay_seconds":60,"label":"invoice 2","tags":{"customer":"42"}}`)
	e.create(e.alice, `{"kind":"once","delay_seconds":60,"label":"invoice 3","tags":{"customer":"7"}}`)
	d := e.create(e.alice, `{"kind":"once","delay_seconds":60,"label":"invoice 4"}`)
	bob := e.create(e.bob, `{"kind":"once","delay_seconds":60,"label":"invoice 1","tags":{"customer":"42"}}`)
	expectAlarm(t, e.act(e.alice, "cancel", c.ID))

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"?label_prefix=invoice&tag=customer:42", []string{c.ID, a.ID}},
		{"?label_prefix=invoice&tag=customer:42&status=active", []string{a.ID}},
		{"?label_prefix=invoice%204", []string{d.ID}},
		{"?label_prefix=invoice%25&tag=customer:42", []string{}}, // literal, no wildcards
		{"?label_prefix=rem&tag=customer:7", []string{}},
	} {
		if got := ids(e.list(e.alice, tc.query).Alarms); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.query, got, tc.want)
		}
	}
	first := e.list(e.alice, "?label_prefix=invoice&tag=customer:42&limit=1")
	second := e.list(e.alice, "?label_prefix=invoice&tag=customer:42&limit=1&cursor="+url.QueryEscape(first.NextCursor))
	if got := append(ids(first.Alarms), ids(second.Alarms)...); !slices.Equal(got, []string{c.ID, a.ID}) {
		t.Errorf("pages: %v", got)
	}
	all, _ := decodeAdminList(t, e.as(e.ops, "GET", "/admin/v1/alarms?label_prefix=invoice&tag=customer:42", ""))
	if got := adminIDs(all); !slices.Equal(got, []string{bob.ID, c.ID, a.ID}) {
		t.Errorf("admin list: %v", got)
	}
	expectError(t, e.as(e.alice, "GET", "/v1/alarms?label_prefix=a%00", ""), http.StatusBadRequest, "invalid_argument", "label_prefix")
}

func adminIDs(as []adminAlarmView) []string {
	out := []string{}
	for _, a := range as {
		out = append(out, a.ID)
	}
	return out
}

type ownerBulkView struct {
	Matched    int     `json:"matched"`
	Changed    int     `json:"changed"`
	More       bool    `json:"more"`
	NextCursor *string `json:"next_cursor"`
	DryRun     bool    `json:"dry_run"`
}

func (e *env) ownerBulk(token, body string) ownerBulkView {
	e.t.Helper()
	res := e.as(token, "POST", "/v1/alarms/bulk", body)
	if res.status != http.StatusOK {
		e.t.Fatalf("POST /v1/alarms/bulk %s: %d %s", body, res.status, res.body)
	}
	var v ownerBulkView
	decodeStrict(e.t, res, &v)
	return v
}

// A bulk action changes the owner's matching alarms as the single action would, counts
// what it matched and changed, changes nothing more when repeated, never reaches
// another owner's alarms, and runs once per owner at a time.
func TestOwnerBulkActions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var series []alarmView
	for range 3 {
		series = append(series, e.create(e.alice, `{"kind":"cron","cron_expr":"@daily","tags":{"customer":"42"}}`))
	}
	once := e.create(e.alice, `{"kind":"once","delay_seconds":60,"tags":{"customer":"42"}}`)
	other := e.create(e.alice, `{"kind":"cron","cron_expr":"@daily","tags":{"customer":"7"}}`)
	bobs := e.create(e.bob, `{"kind":"cron","cron_expr":"@daily","tags":{"customer":"42"}}`)
	expectAlarm(t, e.act(e.alice, "pause", series[0].ID))

	pause := `{"filter":{"tag":["customer:42"]},"action":"pause"}`
	if got := e.ownerBulk(e.alice, `{"filter":{"tag":["customer:42"]},"action":"pause","dry_run":true}`); got != (ownerBulkView{Matched: 4, Changed: 2, DryRun: true}) {
		t.Errorf("dry run: %+v", got)
	}
	if got := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+series[1].ID, "")); got.Status != "active" {
		t.Errorf("a dry run changed an alarm: %s", got.Status)
	}
	if got := e.ownerBulk(e.alice, pause); got != (ownerBulkView{Matched: 4, Changed: 2}) {
		t.Errorf("pause: %+v", got)
	}
	if got := e.ownerBulk(e.alice, pause); got != (ownerBulkView{Matched: 4, Changed: 0}) {
		t.Errorf("pause again: %+v", got)
	}
	for _, a := range series {
		if got := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID, "")); got.Status != "paused" {
			t.Errorf("series %s: %s, want paused", a.ID, got.Status)
		}
	}
	for who, a := range map[string]alarmView{"the once alarm": once, "customer 7's": other} {
		if got := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID, "")); got.Status != "active" {
			t.Errorf("%s: %s, want active", who, got.Status)
		}
	}
	if got := decodeAdminAlarm(t, e.as(e.ops, "GET", "/admin/v1/alarms/"+bobs.ID, "")); got.Status != "active" {
		t.Errorf("bob's alarm: %s, want active", got.Status)
	}
	var events struct {
		Events []eventView `json:"events"`
	}
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms/"+series[1].ID+"/events", ""), &events)
	if n := len(events.Events); n != 2 || events.Events[1].Type != "paused" {
		t.Errorf("events after a bulk pause: %+v", events.Events)
	}
	if got := e.ownerBulk(e.alice, `{"filter":{"tag":["customer:42"],"status":"paused"},"action":"resume"}`); got != (ownerBulkView{Matched: 3, Changed: 3}) {
		t.Errorf("resume: %+v", got)
	}
	if got := e.ownerBulk(e.alice, `{"filter":{"tag":["customer:42"]},"action":"cancel"}`); got != (ownerBulkView{Matched: 4, Changed: 4}) {
		t.Errorf("cancel: %+v", got)
	}
	if got := e.ownerBulk(e.alice, `{"filter":{"label_prefix":"nothing"},"action":"cancel"}`); got != (ownerBulkView{}) {
		t.Errorf("nothing matched: %+v", got)
	}

	// Another bulk call of the owner holds the lease (on this node or another): 409;
	// another owner's call is not held up.
	if got, err := e.store.AcquireLease(e.ctx, "bulk:alice", "another-call", time.Minute); err != nil || !got {
		t.Fatalf("taking the lease: %t, %v", got, err)
	}
	res := expectError(t, e.as(e.alice, "POST", "/v1/alarms/bulk", pause), http.StatusConflict, "conflict", "")
	if !strings.Contains(res.Message, "bulk action") {
		t.Errorf("409 message %q does not say why", res.Message)
	}
	e.ownerBulk(e.bob, pause)
	e.ownerBulk(e.alice, `{"filter":{"tag":["customer:42"]},"action":"pause","dry_run":true}`) // a dry run takes no lease
	if err := e.store.ReleaseLease(e.ctx, "bulk:alice", "another-call"); err != nil {
		t.Fatal(err)
	}
	e.ownerBulk(e.alice, pause)

	for _, tc := range []struct{ body, code, field string }{
		{`{"action":"pause"}`, "invalid_argument", "filter"},
		{`{"filter":{},"action":"pause"}`, "invalid_argument", "filter"},
		{`{"filter":{"tag":[]},"action":"cancel"}`, "invalid_argument", "filter"},
		{`{"filter":{"tag":["customer:42"]},"action":"delete"}`, "invalid_argument", "action"},
		{`{"filter":{"tag":["customer:42"]}}`, "invalid_argument", "action"},
		{`{"filter":{"tag":["customer"]},"action":"pause"}`, "invalid_argument", "filter.tag"},
		{`{"filter":{"status":"sleeping"},"action":"pause"}`, "invalid_argument", "filter.status"},
		{`{"filter":{"owner":"bob"},"action":"pause"}`, "invalid_request", "filter.owner"},
		{`{"filter":{"tag":"customer:42"},"action":"pause"}`, "invalid_request", "filter.tag"},
		{`{"filter":"customer:42","action":"pause"}`, "invalid_request", "filter"},
	} {
		expectError(t, e.as(e.alice, "POST", "/v1/alarms/bulk", tc.body), http.StatusBadRequest, tc.code, tc.field)
	}
}

// A bulk call goes through at most the server's bound of alarms and answers more with a
// cursor; calls from each cursor in turn reach every alarm the filter matched exactly
// once, a dry run by the same pages, and nothing else of the owner's or of others'.
func TestOwnerBulkGoesOnByCursor(t *testing.T) {
	t.Parallel()
	const perCall, many = 7, 30
	e := newEnvWith(t, envOptions{maxBulkPerCall: perCall})
	var ids []string
	for range many {
		ids = append(ids, e.create(e.alice, `{"kind":"once","delay_seconds":3600,"tags":{"campaign":"x"}}`).ID)
	}
	kept := e.create(e.alice, `{"kind":"once","delay_seconds":3600,"tags":{"campaign":"y"}}`)
	bobs := e.create(e.bob, `{"kind":"once","delay_seconds":3600,"tags":{"campaign":"x"}}`)

	walk := func(body string) (calls, matched, changed int) {
		t.Helper()
		cursor := ""
		for {
			req := strings.TrimSuffix(body, "}")
			if cursor != "" {
				req += fmt.Sprintf(`,"cursor":%q`, cursor)
			}
			got := e.ownerBulk(e.alice, req+"}")
			calls, matched, changed = calls+1, matched+got.Matched, changed+got.Changed
			if got.Matched > perCall {
				t.Errorf("call %d went through %d alarms, over the bound of %d", calls, got.Matched, perCall)
			}
			if got.More != (got.NextCursor != nil) {
				t.Errorf("call %d: more %t with next_cursor %v", calls, got.More, got.NextCursor)
			}
			if got.NextCursor == nil {
				return calls, matched, changed
			}
			if calls > many {
				t.Fatal("the cursor never ends")
			}
			cursor = *got.NextCursor
		}
	}
	if calls, matched, changed := walk(`{"filter":{"tag":["campaign:x"]},"action":"cancel","dry_run":true}`); calls < many/perCall || matched != many || changed != many {
		t.Errorf("dry run by cursor: %d calls, %d matched, %d would change; want %d each in at least %d calls", calls, matched, changed, many, many/perCall)
	}
	if calls, matched, changed := walk(`{"filter":{"tag":["campaign:x"],"status":"active"},"action":"cancel"}`); calls < many/perCall || matched != many || changed != many {
		t.Errorf("cancel by cursor: %d calls, %d matched, %d changed; want %d each in at least %d calls", calls, matched, changed, many, many/perCall)
	}
	for _, id := range ids {
		var events struct {
			Events []eventView `json:"events"`
		}
		decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms/"+id+"/events", ""), &events)
		cancelled := 0
		for _, ev := range events.Events {
			if ev.Type == "cancelled" {
				cancelled++
			}
		}
		if cancelled != 1 {
			t.Errorf("alarm %s has %d cancelled events, want exactly 1", id, cancelled)
		}
	}
	if got := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+kept.ID, "")); got.Status != "active" {
		t.Errorf("an alarm the filter does not select: %s", got.Status)
	}
	if got := decodeAdminAlarm(t, e.as(e.ops, "GET", "/admin/v1/alarms/"+bobs.ID, "")); got.Status != "active" {
		t.Errorf("bob's alarm: %s, want active", got.Status)
	}
	expectError(t, e.as(e.alice, "POST", "/v1/alarms/bulk", `{"filter":{"tag":["campaign:x"]},"action":"cancel","cursor":"%%%"}`),
		http.StatusBadRequest, "invalid_argument", "cursor")
}
