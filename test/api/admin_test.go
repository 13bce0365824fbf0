package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/app/chores"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// adminAlarmView is the admin's alarm: the owner's view plus these. Decoding refuses
// unknown fields.
type adminAlarmView struct {
	alarmView
	Owner             string  `json:"owner"`
	ClaimedBy         string  `json:"claimed_by"`
	ClaimedAt         *string `json:"claimed_at"`
	Redacted          bool    `json:"redacted"`
	PayloadSize       int     `json:"payload_size"`
	PayloadSHA256     string  `json:"payload_sha256"`
	WakeMessageSize   int     `json:"wake_message_size"`
	WakeMessageSHA256 string  `json:"wake_message_sha256"`
}

func decodeAdminAlarm(t *testing.T, res response) adminAlarmView {
	t.Helper()
	if res.status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", res.status, res.body)
	}
	var body struct {
		Alarm adminAlarmView `json:"alarm"`
	}
	decodeStrict(t, res, &body)
	return body.Alarm
}

func decodeAdminList(t *testing.T, res response) ([]adminAlarmView, string) {
	t.Helper()
	if res.status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", res.status, res.body)
	}
	var body struct {
		Alarms     []adminAlarmView `json:"alarms"`
		NextCursor string           `json:"next_cursor"`
	}
	decodeStrict(t, res, &body)
	return body.Alarms, body.NextCursor
}

// failed creates a once alarm of token's owner, due now with one allowed failure, and
// fails its one delivery through the store, as a dispatcher would.
func (e *env) failed(token, label string) alarmView {
	e.t.Helper()
	a := e.create(token, `{"kind":"once","delay_seconds":0,"max_failures":1,"label":"`+label+`"}`)
	c, err := e.store.ClaimDue(e.ctx, ports.ClaimParams{Worker: "api-test", Lease: time.Minute, Batch: 10})
	if err != nil || len(c.Alarms) != 1 || c.Alarms[0].ID != a.ID {
		e.t.Fatalf("claiming %s: %v %d alarms", a.ID, err, len(c.Alarms))
	}
	t := domain.Decide(domain.Begin(c.Alarms[0], c.Now, domain.Policy{}), domain.DeliveryFailed("HTTP 503"), c.Now, domain.Policy{Backoff: domain.DefaultBackoff})
	if r, err := e.store.Apply(e.ctx, []domain.Transition{t}); err != nil || r.Applied != 1 {
		e.t.Fatalf("failing %s: %v %+v", a.ID, err, r)
	}
	return a
}

// Every admin route is refused without a token (401), with an owner token (403), and,
// for the routes that change things, with a read-only admin token (403); the read-only
// token reads.
func TestAdminRoutesNeedAnAdminToken(t *testing.T) {
	e := newEnv(t)
	a := e.create(e.alice, onceIn60s)
	reads := [][2]string{
		{"GET", "/admin/v1/overview"}, {"GET", "/admin/v1/alarms"}, {"GET", "/admin/v1/alarms/" + a.ID},
		{"GET", "/admin/v1/alarms/" + a.ID + "/events"}, {"GET", "/admin/v1/workers"},
		{"GET", "/admin/v1/dispatch"}, {"GET", "/admin/v1/retention"},
	}
	changes := [][2]string{
		{"POST", "/admin/v1/alarms/" + a.ID + "/retry"}, {"POST", "/admin/v1/alarms/" + a.ID + "/cancel"},
		{"DELETE", "/admin/v1/alarms/" + a.ID}, {"POST", "/admin/v1/alarms/retry"}, {"POST", "/admin/v1/alarms/cancel"},
		{"POST", "/admin/v1/alarms/delete"}, {"POST", "/admin/v1/dispatch/pause"}, {"POST", "/admin/v1/dispatch/resume"},
		{"POST", "/admin/v1/retention/run"},
	}
	body := func(path string) string {
		if strings.HasSuffix(path, "/alarms/retry") || strings.HasSuffix(path, "/alarms/cancel") || strings.HasSuffix(path, "/alarms/delete") {
			return `{"owner":"alice"}`
		}
		return ""
	}
	for _, r := range append(append([][2]string{}, reads...), changes...) {
		expectError(t, e.request(r[0], r[1], "", nil), http.StatusUnauthorized, "unauthenticated", "")
		expectError(t, e.as(e.alice, r[0], r[1], body(r[1])), http.StatusForbidden, "forbidden", "")
	}
	for _, r := range changes {
		expectError(t, e.as(e.reader, r[0], r[1], body(r[1])), http.StatusForbidden, "forbidden", "")
	}
	for _, r := range reads {
		if res := e.as(e.reader, r[0], r[1], ""); res.status != http.StatusOK {
			t.Errorf("%s %s as admin:read: %d %s", r[0], r[1], res.status, res.body)
		}
	}
	// Nothing the refused calls asked for happened.
	if got := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID, "")); got.Status != "active" {
		t.Errorf("alarm is %s after refused admin calls, want active", got.Status)
	}
}

// An admin view never shows a payload's or wake message's content: only its size and
// SHA-256, in the alarm, the list and the history, unless the server opts in.
func TestAdminViewsRedactPayloads(t *testing.T) {
	const secret = "sk_live_7Hs9SECRETdoNotLeak"
	const wake = "the vault password is hunter2-SECRET"
	payload := `{"api_key": "` + secret + `", "n": 1}`
	body := `{"kind":"once","delay_seconds":60,"wake_message":"` + wake + `","payload":` + payload + `}`
	for _, show := range []bool{false, true} {
		e := newEnvWith(t, envOptions{showPayloads: show})
		a := e.create(e.alice, body)
		got := decodeAdminAlarm(t, e.as(e.ops, "GET", "/admin/v1/alarms/"+a.ID, ""))
		list := e.as(e.ops, "GET", "/admin/v1/alarms?owner=alice", "")
		events := e.as(e.ops, "GET", "/admin/v1/alarms/"+a.ID+"/events", "")
		for _, res := range []response{e.as(e.ops, "GET", "/admin/v1/alarms/"+a.ID, ""), list} {
			if !strings.Contains(string(res.body), a.ID) {
				t.Errorf("show=%t: the alarm is missing from %s", show, res.body)
			}
			if shown := strings.Contains(string(res.body), "SECRET"); shown != show {
				t.Errorf("show=%t: the secret is shown=%t in %s", show, shown, res.body)
			}
		}
		if strings.Contains(string(events.body), "SECRET") || events.status != http.StatusOK {
			t.Errorf("the history shows the secret: %d %s", events.status, events.body)
		}
		sum := sha256.Sum256([]byte(payload))
		wakeSum := sha256.Sum256([]byte(wake))
		if got.Owner != "alice" || got.Redacted == show || got.PayloadSize != len(payload) ||
			got.PayloadSHA256 != hex.EncodeToString(sum[:]) || got.WakeMessageSize != len(wake) ||
			got.WakeMessageSHA256 != hex.EncodeToString(wakeSum[:]) {
			t.Errorf("show=%t: admin view %+v; want owner alice, redacted %t, payload %d bytes sha %x, wake %d bytes",
				show, got, !show, len(payload), sum, len(wake))
		}
		if show && (string(got.Payload) != payload || got.WakeMessage != wake) {
			t.Errorf("with --admin-show-payloads: payload %s wake %q, want them as stored", got.Payload, got.WakeMessage)
		}
		if !show && (string(got.Payload) != "null" || got.WakeMessage != "") {
			t.Errorf("redacted view shows payload %s wake %q", got.Payload, got.WakeMessage)
		}
		// The owner's own view is never redacted.
		if own := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID, "")); string(own.Payload) != payload {
			t.Errorf("the owner's view of the payload = %s", own.Payload)
		}
	}
}

// The admin list crosses owners, newest first, with every filter; bad filters are 400s
// naming the parameter.
func TestAdminListFilters(t *testing.T) {
	e := newEnv(t)
	a1 := e.create(e.alice, `{"kind":"once","delay_seconds":60,"label":"billing:1"}`)
	b1 := e.create(e.bob, `{"kind":"cron","cron_expr":"0 9 * * *","label":"report"}`)
	e.clock(time.Millisecond)
	f1 := e.failed(e.bob, "billing:2")
	ids := func(as []adminAlarmView) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.ID)
		}
		return out
	}
	for q, want := range map[string][]string{
		"":                          {f1.ID, b1.ID, a1.ID},
		"owner=bob":                 {f1.ID, b1.ID},
		"status=failed":             {f1.ID},
		"kind=cron":                 {b1.ID},
		"label_prefix=billing%3A":   {f1.ID, a1.ID},
		"owner=alice&status=failed": nil,
		"failed_since=" + url.QueryEscape(time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)): {f1.ID},
		"failed_since=" + url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339)):  nil,
	} {
		got, _ := decodeAdminList(t, e.as(e.reader, "GET", "/admin/v1/alarms?"+q, ""))
		if strings.Join(ids(got), ",") != strings.Join(want, ",") {
			t.Errorf("?%s = %v, want %v", q, ids(got), want)
		}
	}
	page, next := decodeAdminList(t, e.as(e.reader, "GET", "/admin/v1/alarms?limit=2", ""))
	rest, last := decodeAdminList(t, e.as(e.reader, "GET", "/admin/v1/alarms?limit=2&cursor="+url.QueryEscape(next), ""))
	if len(page) != 2 || next == "" || len(rest) != 1 || last != "" || rest[0].ID != a1.ID {
		t.Errorf("pages of 2: %v (%q) then %v (%q)", ids(page), next, ids(rest), last)
	}
	for q, field := range map[string]string{
		"status=done": "status", "kind=daily": "kind", "failed_since=yesterday": "failed_since",
		"failed_since=2026-01-01T00:00:00Z&status=active": "failed_since", "limit=0": "limit", "limit=501": "limit",
		"cursor=nonsense": "cursor",
	} {
		expectError(t, e.as(e.reader, "GET", "/admin/v1/alarms?"+q, ""), http.StatusBadRequest, "invalid_argument", field)
	}
}

// clock waits d, so alarms created after it have later ids and times.
func (e *env) clock(d time.Duration) { time.Sleep(d) }

// Retry makes a failed alarm active and due now; cancel and delete work on any owner's
// alarm; each records who did it; what does not apply is a 409 or 404.
func TestAdminRetryCancelDelete(t *testing.T) {
	e := newEnv(t)
	f := e.failed(e.bob, "")
	got := decodeAdminAlarm(t, e.as(e.ops, "POST", "/admin/v1/alarms/"+f.ID+"/retry", ""))
	if got.Status != "active" || got.FailureCount != 0 || got.LastError != "" || got.NextFireAt == nil {
		t.Errorf("retried alarm = %+v, want active, due, failures reset", got)
	}
	near(t, "next_fire_at of a retried alarm", instant(t, got.NextFireAt), time.Now())
	expectError(t, e.as(e.ops, "POST", "/admin/v1/alarms/"+f.ID+"/retry", ""), http.StatusConflict, "invalid_state", "")

	got = decodeAdminAlarm(t, e.as(e.ops, "POST", "/admin/v1/alarms/"+f.ID+"/cancel", ""))
	if got.Status != "cancelled" {
		t.Errorf("cancelled alarm is %s", got.Status)
	}
	var evs struct {
		Events []eventView `json:"events"`
	}
	decodeStrict(t, e.as(e.reader, "GET", "/admin/v1/alarms/"+f.ID+"/events", ""), &evs)
	var types []string
	for _, ev := range evs.Events {
		types = append(types, ev.Type)
		if (ev.Type == "retried" || ev.Type == "cancelled") && ev.Message != "by "+e.opsID {
			t.Errorf("%s event message %q, want %q", ev.Type, ev.Message, "by "+e.opsID)
		}
	}
	if strings.Join(types, ",") != "created,failed,retried,cancelled" {
		t.Errorf("history = %v", types)
	}

	var del struct {
		Deleted struct{ Alarms, Events int } `json:"deleted"`
	}
	res := e.as(e.ops, "DELETE", "/admin/v1/alarms/"+f.ID, "")
	if res.status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.status, res.body)
	}
	decodeStrict(t, res, &del)
	if del.Deleted.Alarms != 1 || del.Deleted.Events != 3 {
		t.Errorf("deleted %+v, want 1 alarm and its 3 stored events (the created event is not stored)", del.Deleted)
	}
	expectError(t, e.as(e.bob, "GET", "/v1/alarms/"+f.ID, ""), http.StatusNotFound, "not_found", "")
	expectError(t, e.as(e.ops, "DELETE", "/admin/v1/alarms/"+f.ID, ""), http.StatusNotFound, "not_found", "")
	expectError(t, e.as(e.ops, "POST", "/admin/v1/alarms/"+f.ID+"/retry", ""), http.StatusNotFound, "not_found", "")
}

type bulkView struct {
	Matched int  `json:"matched"`
	Changed int  `json:"changed"`
	More    bool `json:"more"`
	DryRun  bool `json:"dry_run"`
}

func (e *env) bulk(action, body string) bulkView {
	e.t.Helper()
	v, _ := e.bulkCursor(action, body)
	return v
}

// bulkCursor is bulk with the answer's next_cursor ("" when null), which must be there
// exactly when more is.
func (e *env) bulkCursor(action, body string) (bulkView, string) {
	e.t.Helper()
	res := e.as(e.ops, "POST", "/admin/v1/alarms/"+action, body)
	if res.status != http.StatusOK {
		e.t.Fatalf("bulk %s %s: %d %s", action, body, res.status, res.body)
	}
	var v struct {
		bulkView
		NextCursor *string `json:"next_cursor"`
	}
	decodeStrict(e.t, res, &v)
	if v.More != (v.NextCursor != nil) {
		e.t.Errorf("bulk %s %s: more %t with next_cursor %v", action, body, v.More, v.NextCursor)
	}
	if v.NextCursor == nil {
		return v.bulkView, ""
	}
	return v.bulkView, *v.NextCursor
}

// Bulk actions apply to what the filter selects, up to the limit, say how many they
// changed and whether more match; a filter that selects everything is refused.
func TestAdminBulk(t *testing.T) {
	e := newEnv(t)
	for range 3 {
		e.failed(e.bob, "batch")
	}
	keep := e.create(e.alice, onceIn60s)
	got, cursor := e.bulkCursor("retry", `{"owner":"bob","limit":2}`)
	if got != (bulkView{Matched: 2, Changed: 2, More: true}) {
		t.Errorf("retry limit 2 = %+v", got)
	}
	if got := e.bulk("retry", `{"owner":"bob","limit":2,"cursor":"`+cursor+`"}`); got != (bulkView{Matched: 1, Changed: 1}) {
		t.Errorf("retry from the cursor = %+v, want the third alarm alone", got)
	}
	if got := e.bulk("retry", `{"owner":"bob"}`); got != (bulkView{Matched: 3, Changed: 0}) {
		t.Errorf("retry again without a cursor = %+v, want 3 matched, none left to change", got)
	}
	if got := e.bulk("cancel", `{"label_prefix":"batch"}`); got != (bulkView{Matched: 3, Changed: 3}) {
		t.Errorf("cancel = %+v", got)
	}
	if got := e.bulk("delete", `{"status":"cancelled"}`); got != (bulkView{Matched: 3, Changed: 3}) {
		t.Errorf("delete = %+v", got)
	}
	if list, _ := decodeAdminList(t, e.as(e.ops, "GET", "/admin/v1/alarms", "")); len(list) != 1 || list[0].ID != keep.ID {
		t.Errorf("after the bulk delete: %d alarms left, want only alice's", len(list))
	}
	expectError(t, e.as(e.ops, "POST", "/admin/v1/alarms/delete", `{}`), http.StatusBadRequest, "invalid_argument", "filter")
	expectError(t, e.as(e.ops, "POST", "/admin/v1/alarms/delete", `{"owner":"bob","limit":10001}`), http.StatusBadRequest, "invalid_argument", "limit")
	expectError(t, e.as(e.ops, "POST", "/admin/v1/alarms/cancel", `{"owner":"bob","colour":"red"}`), http.StatusBadRequest, "invalid_request", "colour")
	expectError(t, e.as(e.ops, "POST", "/admin/v1/alarms/retry", `{"status":"done"}`), http.StatusBadRequest, "invalid_argument", "status")
}

// A dry run says what the bulk action would select and change, and changes nothing:
// the real action afterwards still finds every alarm as it was.
func TestAdminBulkDryRun(t *testing.T) {
	e := newEnv(t)
	for range 3 {
		e.failed(e.bob, "batch")
	}
	active := e.create(e.bob, onceIn60s)
	for _, c := range []struct {
		action, body string
		want         bulkView
	}{
		{"retry", `{"owner":"bob","dry_run":true}`, bulkView{Matched: 4, Changed: 3, DryRun: true}},
		{"retry", `{"owner":"bob","limit":2,"dry_run":true}`, bulkView{Matched: 2, Changed: 1, More: true, DryRun: true}}, // newest first: the active one and a failed one
		{"cancel", `{"owner":"bob","dry_run":true}`, bulkView{Matched: 4, Changed: 1, DryRun: true}},
		{"delete", `{"owner":"bob","dry_run":true}`, bulkView{Matched: 4, Changed: 4, DryRun: true}},
	} {
		if got := e.bulk(c.action, c.body); got != c.want {
			t.Errorf("%s %s = %+v, want %+v", c.action, c.body, got, c.want)
		}
	}
	if got := e.bulk("retry", `{"owner":"bob"}`); got != (bulkView{Matched: 4, Changed: 3}) {
		t.Errorf("the real retry after the dry runs = %+v, want the 3 failed alarms changed", got)
	}
	if a := decodeAlarm(t, e.as(e.bob, "GET", "/v1/alarms/"+active.ID, "")); a.Status != "active" {
		t.Errorf("the active alarm is %s after dry runs of cancel and delete", a.Status)
	}
	expectError(t, e.as(e.ops, "POST", "/admin/v1/alarms/delete", `{"dry_run":true}`), http.StatusBadRequest, "invalid_argument", "filter")
}

type dispatchView struct {
	Paused        bool    `json:"paused"`
	Since         *string `json:"since"`
	By            string  `json:"by"`
	PausedSeconds float64 `json:"paused_seconds"`
}

func (e *env) dispatch(token, method, path string) dispatchView {
	e.t.Helper()
	res := e.as(token, method, path, "")
	if res.status != http.StatusOK {
		e.t.Fatalf("%s %s: %d %s", method, path, res.status, res.body)
	}
	var body struct {
		Dispatch dispatchView `json:"dispatch"`
	}
	decodeStrict(e.t, res, &body)
	return body.Dispatch
}

// The pause gate is stored for the cluster, says who paused it and since when, and
// shows in the overview; pausing twice keeps the first pause.
func TestAdminDispatchPauseResume(t *testing.T) {
	e := newEnv(t)
	if d := e.dispatch(e.reader, "GET", "/admin/v1/dispatch"); d.Paused || d.Since != nil {
		t.Errorf("a new cluster's gate = %+v, want running", d)
	}
	p := e.dispatch(e.ops, "POST", "/admin/v1/dispatch/pause")
	if !p.Paused || p.By != e.opsID || p.Since == nil {
		t.Errorf("after pause: %+v, want paused by %s", p, e.opsID)
	}
	near(t, "paused since", instant(t, p.Since), time.Now())
	if again := e.dispatch(e.ops, "POST", "/admin/v1/dispatch/pause"); *again.Since != *p.Since {
		t.Errorf("pausing again moved since from %s to %s", *p.Since, *again.Since)
	}
	st, ok, err := e.store.GetState(e.ctx, "dispatch")
	if err != nil || !ok || !strings.Contains(st.Value, `"paused":true`) {
		t.Errorf("stored gate = %q (%t, %v), want paused", st.Value, ok, err)
	}
	if o := e.overview(); !o.Dispatch.Paused || o.Dispatch.By != e.opsID {
		t.Errorf("overview dispatch = %+v, want paused", o.Dispatch)
	}
	if d := e.dispatch(e.ops, "POST", "/admin/v1/dispatch/resume"); d.Paused || d.PausedSeconds != 0 {
		t.Errorf("after resume: %+v", d)
	}
}

type overviewView struct {
	Counts              map[string]int64 `json:"counts"`
	Total               int64            `json:"total"`
	DueBacklog          int64            `json:"due_backlog"`
	OldestDueAt         *string          `json:"oldest_due_at"`
	OldestDueLagSeconds float64          `json:"oldest_due_lag_seconds"`
	WakesLastMinute     struct {
		Delivered, Failed int64
	} `json:"wakes_last_minute"`
	WakesLastHour struct {
		Delivered, Failed int64
	} `json:"wakes_last_hour"`
	LiveWorkers      int                   `json:"live_workers"`
	QueuingEndpoints []domain.EndpointLoad `json:"queuing_endpoints"`
	Dispatch         dispatchView          `json:"dispatch"`
	Now              *string               `json:"now"`
}

func (e *env) overview() overviewView {
	e.t.Helper()
	res := e.as(e.reader, "GET", "/admin/v1/overview", "")
	if res.status != http.StatusOK {
		e.t.Fatalf("overview: %d %s", res.status, res.body)
	}
	var body struct {
		Overview overviewView `json:"overview"`
	}
	if err := json.Unmarshal(res.body, &body); err != nil {
		e.t.Fatal(err)
	}
	return body.Overview
}

// The overview counts every owner's alarms by status and the due backlog, and sums the
// live workers' wakes; the workers route shows each node with its heartbeat age.
func TestAdminOverviewAndWorkers(t *testing.T) {
	e := newEnv(t)
	e.failed(e.bob, "")
	e.create(e.alice, onceIn60s)
	e.create(e.alice, `{"kind":"once","delay_seconds":0}`)
	if q := e.overview().QueuingEndpoints; q == nil || len(q) != 0 {
		t.Errorf("queuing_endpoints with no worker = %#v, want []", q)
	}
	queuing := []domain.EndpointLoad{
		{Owner: "alice", Name: "billing", Queued: 4, InFlight: 8, HeldBack: 120},
		{Owner: "bob", Name: "hook", InFlight: 2, HeldBack: 3},
	}
	stats := domain.WorkerStats{InFlight: 2, Claimed: 10, Delivered: 9, Failed: 1, Delivered1m: 3, Failed1m: 1, Delivered1h: 9, Failed1h: 1,
		Endpoints: queuing}
	if err := e.store.RegisterWorker(e.ctx, domain.Worker{ID: "node-1", Host: "h1", PID: 7, Version: "v9", Stats: stats}); err != nil {
		t.Fatal(err)
	}
	o := e.overview()
	if o.Counts["active"] != 2 || o.Counts["failed"] != 1 || o.Total != 3 || o.DueBacklog != 1 || o.OldestDueAt == nil {
		t.Errorf("overview counts %v total %d due %d oldest %v", o.Counts, o.Total, o.DueBacklog, o.OldestDueAt)
	}
	if o.LiveWorkers != 1 || o.WakesLastMinute.Delivered != 3 || o.WakesLastMinute.Failed != 1 || o.WakesLastHour.Delivered != 9 {
		t.Errorf("overview workers %d, last minute %+v, last hour %+v", o.LiveWorkers, o.WakesLastMinute, o.WakesLastHour)
	}
	if !reflect.DeepEqual(o.QueuingEndpoints, queuing) {
		t.Errorf("overview queuing_endpoints = %+v, want the live worker's %+v", o.QueuingEndpoints, queuing)
	}
	var ws struct {
		Workers []struct {
			ID                  string             `json:"id"`
			Host                string             `json:"host"`
			PID                 int                `json:"pid"`
			Version             string             `json:"version"`
			StartedAt           *string            `json:"started_at"`
			HeartbeatAt         *string            `json:"heartbeat_at"`
			HeartbeatAgeSeconds float64            `json:"heartbeat_age_seconds"`
			Alive               bool               `json:"alive"`
			Stats               domain.WorkerStats `json:"stats"`
		} `json:"workers"`
	}
	decodeStrict(t, e.as(e.reader, "GET", "/admin/v1/workers", ""), &ws)
	if len(ws.Workers) != 1 {
		t.Fatalf("workers = %+v, want node-1", ws.Workers)
	}
	w := ws.Workers[0]
	if w.ID != "node-1" || w.Host != "h1" || w.PID != 7 || w.Version != "v9" || !w.Alive || !reflect.DeepEqual(w.Stats, stats) || w.HeartbeatAgeSeconds > 5 {
		t.Errorf("worker = %+v", w)
	}
}

// Retention reports its policy, runs on demand, and the run is what the next read
// reports as the last one.
func TestAdminRetention(t *testing.T) {
	e := newEnv(t)
	var before struct {
		Retention struct {
			Enabled          bool            `json:"enabled"`
			RetentionSeconds float64         `json:"retention_seconds"`
			EventsPerAlarm   int             `json:"events_per_alarm"`
			LastRun          json.RawMessage `json:"last_run"`
		} `json:"retention"`
	}
	decodeStrict(t, e.as(e.reader, "GET", "/admin/v1/retention", ""), &before)
	if !before.Retention.Enabled || before.Retention.RetentionSeconds != 3600 || string(before.Retention.LastRun) != "null" {
		t.Errorf("retention before any run = %+v", before.Retention)
	}
	res := e.as(e.ops, "POST", "/admin/v1/retention/run", "")
	if res.status != http.StatusOK {
		t.Fatalf("run: %d %s", res.status, res.body)
	}
	var run struct {
		Run struct {
			Node          string  `json:"node"`
			StartedAt     *string `json:"started_at"`
			FinishedAt    *string `json:"finished_at"`
			AlarmsDeleted int     `json:"alarms_deleted"`
			EventsDeleted int     `json:"events_deleted"`
			Error         string  `json:"error"`
		} `json:"run"`
	}
	decodeStrict(t, res, &run)
	if run.Run.Node != "api-test-node" || run.Run.Error != "" {
		t.Errorf("run = %+v", run.Run)
	}
	decodeStrict(t, e.as(e.reader, "GET", "/admin/v1/retention", ""), &before)
	if !strings.Contains(string(before.Retention.LastRun), `"node":"api-test-node"`) {
		t.Errorf("last_run after a run = %s", before.Retention.LastRun)
	}
	// Another node holding the retention lease makes a run here a 409.
	if err := e.store.ReleaseLease(e.ctx, "retention", "api-test-node"); err != nil {
		t.Fatal(err)
	}
	if ok, err := e.store.AcquireLease(e.ctx, "retention", "other-node", time.Minute); err != nil || !ok {
		t.Fatalf("taking the lease for another node: %t %v", ok, err)
	}
	expectError(t, e.as(e.ops, "POST", "/admin/v1/retention/run", ""), http.StatusConflict, "conflict", "")
}

// The overview takes the counts the sampling node shared while they are recent, so a
// dashboard refreshing every few seconds does not count every alarm each time; without
// a recent sample it counts for itself.
func TestAdminOverviewUsesSharedCounts(t *testing.T) {
	e := newEnv(t)
	e.create(e.alice, onceIn60s)
	sampler := chores.NewCountSampler(e.store, ports.NopMetrics{}, "sampler-node", time.Second, time.Minute, nil)
	if err := sampler.SampleOnce(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.create(e.alice, onceIn60s) // after the sample
	clock := app.NewStoreClock()
	adm := admin.New(e.store, clock, chores.NewDispatchGate(e.store, time.Second, nil, nil), nil,
		admin.Config{Lease: time.Minute, WorkerTimeout: time.Minute, CountsMaxAge: time.Minute}, nil)
	o, err := adm.Overview(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.ByStatus[domain.StatusActive] != 1 || o.CountedAt.IsZero() || !o.CountedAt.Before(o.Now) && !o.CountedAt.Equal(o.Now) {
		t.Errorf("overview with a fresh sample: %d active counted at %s (now %s); want the sample's 1", o.ByStatus[domain.StatusActive], o.CountedAt, o.Now)
	}
	live := admin.New(e.store, clock, chores.NewDispatchGate(e.store, time.Second, nil, nil), nil,
		admin.Config{Lease: time.Minute, WorkerTimeout: time.Minute, CountsMaxAge: time.Nanosecond}, nil)
	time.Sleep(5 * time.Millisecond)
	if o, err = live.Overview(e.ctx); err != nil || o.ByStatus[domain.StatusActive] != 2 {
		t.Errorf("overview once the sample is too old: %d active (%v), want a live count of 2", o.ByStatus[domain.StatusActive], err)
	}
}
