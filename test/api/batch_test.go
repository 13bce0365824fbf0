package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

type batchResult struct {
	Alarm   *alarmView `json:"alarm"`
	Deduped *bool      `json:"deduped"`
	Error   *errorView `json:"error"`
}

func (e *env) batch(token string, items ...string) []batchResult {
	e.t.Helper()
	res := e.as(token, "POST", "/v1/alarms/batch", `{"alarms": [`+strings.Join(items, ",")+`]}`)
	if res.status != http.StatusOK {
		e.t.Fatalf("batch: %d %s", res.status, res.body)
	}
	var body struct {
		Results []batchResult `json:"results"`
	}
	decodeStrict(e.t, res, &body)
	if len(body.Results) != len(items) {
		e.t.Fatalf("%d results for %d items: %s", len(body.Results), len(items), res.body)
	}
	return body.Results
}

// Valid items are created, invalid ones refused with the single create's code and
// field, each in its place; a payload comes back byte for byte.
func TestBatchMixedItemsInOrder(t *testing.T) {
	e := newEnv(t)
	rs := e.batch(e.alice,
		`{"kind": "once", "delay_seconds": 60, "label": "first", "payload": {"b":1,  "a":2}}`,
		`{"kind": "cron", "cron_expr": "not a cron"}`,
		`{"kind": "once", "delay_seconds": 60, "nope": 1}`,
		`[1, 2]`,
		`{"kind": "cron", "cron_expr": "0 9 * * 1-5", "timezone": "Europe/Paris", "label": "last"}`,
	)
	if rs[0].Alarm == nil || rs[0].Alarm.Label != "first" || *rs[0].Deduped {
		t.Errorf("item 0: %+v, want created", rs[0])
	} else if string(rs[0].Alarm.Payload) != `{"b":1,  "a":2}` {
		t.Errorf("item 0 payload %s, want it verbatim", rs[0].Alarm.Payload)
	}
	for i, want := range []struct{ code, field string }{{"invalid_argument", "cron_expr"}, {"invalid_request", "nope"}, {"invalid_request", ""}} {
		r := rs[i+1]
		if r.Error == nil || r.Alarm != nil || r.Error.Code != want.code || r.Error.Field != want.field || r.Error.Message == "" {
			t.Errorf("item %d: %+v, want error %s on %q", i+1, r, want.code, want.field)
		}
	}
	if rs[4].Alarm == nil || rs[4].Alarm.Label != "last" {
		t.Errorf("item 4: %+v, want created", rs[4])
	}
	for _, i := range []int{0, 4} {
		got := e.as(e.alice, "GET", "/v1/alarms/"+rs[i].Alarm.ID, "")
		if got.status != http.StatusOK {
			t.Errorf("item %d not readable: %d", i, got.status)
		}
	}
}

// Each item is idempotent on its own key, within the batch and against stored alarms.
func TestBatchIdempotencyPerItem(t *testing.T) {
	e := newEnv(t)
	stored := e.create(e.alice, `{"kind": "once", "delay_seconds": 60, "idempotency_key": "k1"}`)
	rs := e.batch(e.alice,
		`{"kind": "once", "delay_seconds": 99, "idempotency_key": "k1"}`,
		`{"kind": "once", "delay_seconds": 60, "idempotency_key": "k2"}`,
		`{"kind": "once", "delay_seconds": 70, "idempotency_key": "k2"}`,
	)
	if rs[0].Alarm == nil || rs[0].Alarm.ID != stored.ID || !*rs[0].Deduped {
		t.Errorf("stored key: %+v, want alarm %s deduped", rs[0], stored.ID)
	}
	if rs[1].Alarm == nil || *rs[1].Deduped {
		t.Fatalf("new key: %+v, want created", rs[1])
	}
	if rs[2].Alarm == nil || rs[2].Alarm.ID != rs[1].Alarm.ID || !*rs[2].Deduped {
		t.Errorf("key repeated in the batch: %+v, want item 1's alarm deduped", rs[2])
	}
	// The whole batch again: every item deduped.
	again := e.batch(e.alice, `{"kind": "once", "delay_seconds": 60, "idempotency_key": "k2"}`)
	if again[0].Alarm == nil || again[0].Alarm.ID != rs[1].Alarm.ID || !*again[0].Deduped {
		t.Errorf("repeated batch: %+v, want deduped", again[0])
	}
}

// The call itself is refused, naming "alarms", when it holds no items or too many, and
// without a token nothing is read or written.
func TestBatchCallRefusals(t *testing.T) {
	e := newEnv(t)
	expectError(t, e.as(e.alice, "POST", "/v1/alarms/batch", `{"alarms": []}`), http.StatusBadRequest, "invalid_argument", "alarms")
	expectError(t, e.as(e.alice, "POST", "/v1/alarms/batch", `{}`), http.StatusBadRequest, "invalid_argument", "alarms")
	item := `{"kind": "once", "delay_seconds": 60}`
	many := make([]string, 1001)
	for i := range many {
		many[i] = item
	}
	expectError(t, e.as(e.alice, "POST", "/v1/alarms/batch", `{"alarms": [`+strings.Join(many, ",")+`]}`),
		http.StatusBadRequest, "invalid_argument", "alarms")
	expectError(t, e.as(e.alice, "POST", "/v1/alarms/batch", `{"alarms": 3}`), http.StatusBadRequest, "invalid_request", "alarms")
	expectError(t, e.request("POST", "/v1/alarms/batch", `{"alarms": [`+item+`]}`, nil), http.StatusUnauthorized, "unauthenticated", "")
	if list := e.as(e.alice, "GET", "/v1/alarms", ""); !strings.Contains(string(list.body), `"alarms":[]`) {
		t.Errorf("refused batches created alarms: %s", list.body)
	}
}

// A thousand items are one call, all created.
func TestBatchOfAThousand(t *testing.T) {
	e := newEnv(t)
	items := make([]string, 1000)
	for i := range items {
		items[i] = fmt.Sprintf(`{"kind": "once", "delay_seconds": 60, "label": "n%d"}`, i)
	}
	rs := e.batch(e.bob, items...)
	for i, r := range rs {
		if r.Alarm == nil || r.Alarm.Label != fmt.Sprintf("n%d", i) {
			t.Fatalf("item %d: %+v", i, r)
		}
	}
	var page struct {
		Alarms     []json.RawMessage `json:"alarms"`
		NextCursor string            `json:"next_cursor"`
	}
	res := e.as(e.bob, "GET", "/v1/alarms?limit=500", "")
	decodeStrict(t, res, &page)
	if len(page.Alarms) != 500 || page.NextCursor == "" {
		t.Errorf("bob's first page: %d alarms, cursor %q; want 500 and more", len(page.Alarms), page.NextCursor)
	}
}
