package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
)

// The /admin/v1 routes are served on another branch; these tests hold the client to
// the shapes of the spec (notes/admin-api-spec.md) with a fake server that checks each
// request and answers the spec's JSON.

const adminAlarmJSON = `{"id":"a1","label":"nightly","kind":"cron","fire_at":null,"cron_expr":"0 3 * * *",
 "timezone":"UTC","next_fire_at":"2030-01-02T03:00:00Z","scheduled_for":"2030-01-02T03:00:00Z",
 "conversation_id":"","wake_message":"","payload":null,"status":"active","delivery":"at_least_once",
 "idempotency_key":"","max_failures":5,"failure_count":0,"last_error":"",
 "created_at":"2030-01-01T00:00:00.5Z","updated_at":"2030-01-01T00:00:00.5Z","last_fired_at":null,
 "owner":"alice","claimed_by":"w1","claimed_at":"2030-01-02T03:00:01Z","redacted":true,
 "payload_size":12,"payload_sha256":"abc","wake_message_size":5,"wake_message_sha256":"def"}`

const dispatchJSON = `{"paused":true,"since":"2030-01-01T00:00:00Z","by":"tok_1","paused_seconds":90.5}`

const runJSON = `{"node":"n1","started_at":"2030-01-01T00:00:00Z","finished_at":"2030-01-01T00:00:02Z",
 "alarms_deleted":7,"events_deleted":70,"error":""}`

var t2030 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func wantAdminAlarm(t *testing.T, a client.AdminAlarm) {
	t.Helper()
	if a.ID != "a1" || a.Owner != "alice" || a.Kind != domain.KindCron || a.ClaimedBy != "w1" ||
		!a.ClaimedAt.Equal(time.Date(2030, 1, 2, 3, 0, 1, 0, time.UTC)) || !a.Redacted ||
		a.PayloadSize != 12 || a.PayloadSHA256 != "abc" || a.WakeMessageSize != 5 || a.WakeMessageSHA256 != "def" ||
		!a.FireAt.IsZero() || string(a.Payload) != "null" || !a.CreatedAt.Equal(t2030.Add(500*time.Millisecond)) {
		t.Errorf("admin alarm decoded as %+v", a)
	}
}

// adminCase is one admin method: the request it must send and the answer it gets.
type adminCase struct {
	name   string
	call   func(context.Context, *client.Admin) (any, error)
	method string
	path   string // escaped
	query  string // encoded, keys sorted
	body   string // JSON the request must carry; "" for none
	answer string
	check  func(*testing.T, any)
}

var adminCases = []adminCase{
	{
		name:   "overview",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.Overview(ctx) },
		method: "GET", path: "/admin/v1/overview",
		answer: `{"overview":{"counts":{"active":3,"paused":1,"fired":10,"cancelled":2,"failed":1},"total":17,
			"due_backlog":2,"oldest_due_at":"2030-01-01T00:00:00Z","oldest_due_lag_seconds":1.5,
			"wakes_last_minute":{"delivered":4,"failed":1},"wakes_last_hour":{"delivered":40,"failed":2},
			"live_workers":3,"queuing_endpoints":[{"owner":"alice","name":"billing","queued":4,"in_flight":8,"held_back":120}],
			"dispatch":` + dispatchJSON + `,"now":"2030-01-01T00:00:01.5Z"}}`,
		check: func(t *testing.T, v any) {
			o := v.(client.Overview)
			if q := o.QueuingEndpoints; len(q) != 1 || q[0] != (client.EndpointLoad{Owner: "alice", Name: "billing", Queued: 4, InFlight: 8, HeldBack: 120}) {
				t.Errorf("overview queuing endpoints %+v", q)
			}
			if o.Counts[domain.StatusActive] != 3 || o.Counts[domain.StatusFailed] != 1 || o.Total != 17 ||
				o.DueBacklog != 2 || !o.OldestDueAt.Equal(t2030) || o.OldestDueLag != 1500*time.Millisecond ||
				o.WakesLastMinute != (client.WakeCounts{Delivered: 4, Failed: 1}) || o.WakesLastHour.Delivered != 40 ||
				o.LiveWorkers != 3 || !o.Dispatch.Paused || o.Dispatch.PausedFor != 90500*time.Millisecond ||
				!o.Now.Equal(t2030.Add(1500*time.Millisecond)) {
				t.Errorf("overview %+v", o)
			}
		},
	},
	{
		name: "list alarms with every filter",
		call: func(ctx context.Context, a *client.Admin) (any, error) {
			return a.Alarms(ctx, client.AdminListAlarms{Owner: "alice", Status: domain.StatusFailed, Kind: domain.KindOnce,
				LabelPrefix: "night ly", FailedSince: t2030.Add(1500 * time.Millisecond), Limit: 50, Cursor: "c1"})
		},
		method: "GET", path: "/admin/v1/alarms",
		query:  "cursor=c1&failed_since=2030-01-01T00%3A00%3A01.5Z&kind=once&label_prefix=night+ly&limit=50&owner=alice&status=failed",
		answer: `{"alarms":[` + adminAlarmJSON + `],"next_cursor":"c2"}`,
		check: func(t *testing.T, v any) {
			p := v.(client.AdminAlarmPage)
			if len(p.Alarms) != 1 || p.NextCursor != "c2" {
				t.Fatalf("page %+v", p)
			}
			wantAdminAlarm(t, p.Alarms[0])
		},
	},
	{
		name: "list alarms unfiltered",
		call: func(ctx context.Context, a *client.Admin) (any, error) {
			return a.Alarms(ctx, client.AdminListAlarms{})
		},
		method: "GET", path: "/admin/v1/alarms",
		answer: `{"alarms":[],"next_cursor":""}`,
		check: func(t *testing.T, v any) {
			if p := v.(client.AdminAlarmPage); len(p.Alarms) != 0 || p.NextCursor != "" {
				t.Errorf("page %+v", p)
			}
		},
	},
	{
		name:   "get alarm",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.Alarm(ctx, "a1") },
		method: "GET", path: "/admin/v1/alarms/a1",
		answer: `{"alarm":` + adminAlarmJSON + `}`,
		check:  func(t *testing.T, v any) { wantAdminAlarm(t, v.(client.AdminAlarm)) },
	},
	{
		name:   "events",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.Events(ctx, "a 1", 20) },
		method: "GET", path: "/admin/v1/alarms/a%201/events", query: "limit=20",
		answer: `{"events":[{"id":9,"type":"retried","at":"2030-01-01T00:00:00Z","attempt":0,"scheduled_for":null,
			"occurrence_key":"","worker":"","message":"retried by tok_1"}]}`,
		check: func(t *testing.T, v any) {
			ev := v.([]client.Event)
			if len(ev) != 1 || ev[0].ID != 9 || ev[0].Type != "retried" || !ev[0].At.Equal(t2030) ||
				!ev[0].ScheduledFor.IsZero() || ev[0].Message != "retried by tok_1" {
				t.Errorf("events %+v", ev)
			}
		},
	},
	{
		name:   "retry",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.Retry(ctx, "a1") },
		method: "POST", path: "/admin/v1/alarms/a1/retry",
		answer: `{"alarm":` + adminAlarmJSON + `}`,
		check:  func(t *testing.T, v any) { wantAdminAlarm(t, v.(client.AdminAlarm)) },
	},
	{
		name:   "cancel",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.Cancel(ctx, "a1") },
		method: "POST", path: "/admin/v1/alarms/a1/cancel",
		answer: `{"alarm":` + adminAlarmJSON + `}`,
		check:  func(t *testing.T, v any) { wantAdminAlarm(t, v.(client.AdminAlarm)) },
	},
	{
		name:   "delete",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.Delete(ctx, "a1") },
		method: "DELETE", path: "/admin/v1/alarms/a1",
		answer: `{"deleted":{"alarms":1,"events":4}}`,
		check: func(t *testing.T, v any) {
			if d := v.(client.Deleted); d != (client.Deleted{Alarms: 1, Events: 4}) {
				t.Errorf("deleted %+v", d)
			}
		},
	},
	{
		name: "bulk retry",
		call: func(ctx context.Context, a *client.Admin) (any, error) {
			return a.BulkRetry(ctx, client.BulkFilter{FailedSince: t2030, Limit: 100})
		},
		method: "POST", path: "/admin/v1/alarms/retry",
		body:   `{"failed_since":"2030-01-01T00:00:00Z","limit":100}`,
		answer: `{"matched":100,"changed":100,"more":true}`,
		check: func(t *testing.T, v any) {
			if r := v.(client.BulkResult); r != (client.BulkResult{Matched: 100, Changed: 100, More: true}) {
				t.Errorf("result %+v", r)
			}
		},
	},
	{
		name: "bulk cancel",
		call: func(ctx context.Context, a *client.Admin) (any, error) {
			return a.BulkCancel(ctx, client.BulkFilter{Owner: "bob", Kind: domain.KindCron, LabelPrefix: "tmp-"})
		},
		method: "POST", path: "/admin/v1/alarms/cancel",
		body:   `{"owner":"bob","kind":"cron","label_prefix":"tmp-"}`,
		answer: `{"matched":3,"changed":2,"more":false}`,
		check: func(t *testing.T, v any) {
			if r := v.(client.BulkResult); r != (client.BulkResult{Matched: 3, Changed: 2}) {
				t.Errorf("result %+v", r)
			}
		},
	},
	{
		name: "bulk delete",
		call: func(ctx context.Context, a *client.Admin) (any, error) {
			return a.BulkDelete(ctx, client.BulkFilter{Status: domain.StatusCancelled})
		},
		method: "POST", path: "/admin/v1/alarms/delete",
		body:   `{"status":"cancelled"}`,
		answer: `{"matched":5,"changed":5,"more":false}`,
		check: func(t *testing.T, v any) {
			if r := v.(client.BulkResult); r != (client.BulkResult{Matched: 5, Changed: 5}) {
				t.Errorf("result %+v", r)
			}
		},
	},
	{
		name:   "workers",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.Workers(ctx) },
		method: "GET", path: "/admin/v1/workers",
		answer: `{"workers":[{"id":"w1","host":"h1","pid":42,"version":"v1.2.3","started_at":"2030-01-01T00:00:00Z",
			"heartbeat_at":"2030-01-01T00:00:01Z","heartbeat_age_seconds":0.25,"alive":true,
			"stats":{"in_flight":1,"claimed":2,"delivered":3,"failed":4,"stale":5,"delivered_1m":6,"failed_1m":7,
			"delivered_1h":8,"failed_1h":9}}]}`,
		check: func(t *testing.T, v any) {
			ws := v.([]client.Worker)
			want := client.WorkerStats{InFlight: 1, Claimed: 2, Delivered: 3, Failed: 4, Stale: 5,
				Delivered1m: 6, Failed1m: 7, Delivered1h: 8, Failed1h: 9}
			if len(ws) != 1 || ws[0].ID != "w1" || ws[0].Host != "h1" || ws[0].PID != 42 || ws[0].Version != "v1.2.3" ||
				!ws[0].StartedAt.Equal(t2030) || !ws[0].HeartbeatAt.Equal(t2030.Add(time.Second)) ||
				ws[0].HeartbeatAge != 250*time.Millisecond || !ws[0].Alive || ws[0].Stats != want {
				t.Errorf("workers %+v", ws)
			}
		},
	},
	{
		name:   "dispatch",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.Dispatch(ctx) },
		method: "GET", path: "/admin/v1/dispatch",
		answer: `{"dispatch":` + dispatchJSON + `}`,
		check:  checkDispatch,
	},
	{
		name:   "pause dispatch",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.PauseDispatch(ctx) },
		method: "POST", path: "/admin/v1/dispatch/pause",
		answer: `{"dispatch":` + dispatchJSON + `}`,
		check:  checkDispatch,
	},
	{
		name:   "resume dispatch",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.ResumeDispatch(ctx) },
		method: "POST", path: "/admin/v1/dispatch/resume",
		answer: `{"dispatch":{"paused":false,"since":null,"by":"","paused_seconds":0}}`,
		check: func(t *testing.T, v any) {
			if d := v.(client.Dispatch); d != (client.Dispatch{}) {
				t.Errorf("dispatch %+v, want the zero value", d)
			}
		},
	},
	{
		name:   "retention",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.Retention(ctx) },
		method: "GET", path: "/admin/v1/retention",
		answer: `{"retention":{"enabled":true,"retention_seconds":604800,"events_per_alarm":100,"last_run":` + runJSON + `}}`,
		check: func(t *testing.T, v any) {
			r := v.(client.Retention)
			if !r.Enabled || r.Period != 7*24*time.Hour || r.EventsPerAlarm != 100 || r.LastRun == nil {
				t.Fatalf("retention %+v", r)
			}
			checkRun(t, *r.LastRun)
		},
	},
	{
		name:   "retention never run",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.Retention(ctx) },
		method: "GET", path: "/admin/v1/retention",
		answer: `{"retention":{"enabled":false,"retention_seconds":0,"events_per_alarm":0,"last_run":null}}`,
		check: func(t *testing.T, v any) {
			if r := v.(client.Retention); r.Enabled || r.LastRun != nil {
				t.Errorf("retention %+v", r)
			}
		},
	},
	{
		name:   "run retention",
		call:   func(ctx context.Context, a *client.Admin) (any, error) { return a.RunRetention(ctx) },
		method: "POST", path: "/admin/v1/retention/run",
		answer: `{"run":` + runJSON + `}`,
		check:  func(t *testing.T, v any) { checkRun(t, v.(client.RetentionRun)) },
	},
}

func checkDispatch(t *testing.T, v any) {
	t.Helper()
	want := client.Dispatch{Paused: true, Since: t2030, By: "tok_1", PausedFor: 90500 * time.Millisecond}
	if d := v.(client.Dispatch); !reflect.DeepEqual(d, want) {
		t.Errorf("dispatch %+v, want %+v", d, want)
	}
}

func checkRun(t *testing.T, r client.RetentionRun) {
	t.Helper()
	want := client.RetentionRun{Node: "n1", StartedAt: t2030, FinishedAt: t2030.Add(2 * time.Second), AlarmsDeleted: 7, EventsDeleted: 70}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("run %+v, want %+v", r, want)
	}
}

// fakeAdmin answers one request: it records what it got and replies status and body.
func fakeAdmin(t *testing.T, status int, answer string) (*client.Client, *http.Request, *[]byte) {
	t.Helper()
	var got http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = *r
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, "chr_admin", client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return c, &got, &body
}

func TestClientAdminRequestsAndAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range adminCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, got, body := fakeAdmin(t, http.StatusOK, tc.answer)
			v, err := tc.call(t.Context(), c.Admin())
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if got.Method != tc.method || got.URL.EscapedPath() != tc.path || got.URL.RawQuery != tc.query {
				t.Errorf("sent %s %s?%s; want %s %s?%s", got.Method, got.URL.EscapedPath(), got.URL.RawQuery, tc.method, tc.path, tc.query)
			}
			if a := got.Header.Get("Authorization"); a != "Bearer chr_admin" {
				t.Errorf("Authorization %q", a)
			}
			if tc.body == "" {
				if len(*body) != 0 {
					t.Errorf("sent a body %s; want none", *body)
				}
			} else {
				if !jsonEqual(t, *body, []byte(tc.body)) {
					t.Errorf("sent body %s; want %s", *body, tc.body)
				}
				if ct := got.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
			}
			tc.check(t, v)
		})
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Errorf("%s: %v", a, err)
		return false
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func TestClientAdminErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		call   func(context.Context, *client.Admin) error
		status int
		answer string
		is     func(error) bool
		field  string
	}{
		{"owner token", func(ctx context.Context, a *client.Admin) error { _, err := a.Overview(ctx); return err },
			403, `{"error":{"code":"forbidden","message":"admin scope required"}}`, client.IsForbidden, ""},
		{"retry of an active alarm", func(ctx context.Context, a *client.Admin) error { _, err := a.Retry(ctx, "a1"); return err },
			409, `{"error":{"code":"invalid_state","message":"not failed"}}`, client.IsInvalidState, ""},
		{"bulk without a filter", func(ctx context.Context, a *client.Admin) error {
			_, err := a.BulkDelete(ctx, client.BulkFilter{})
			return err
		}, 400, `{"error":{"code":"invalid","message":"give at least one filter","field":"filter"}}`, client.IsInvalid, "filter"},
		{"delete of an unknown alarm", func(ctx context.Context, a *client.Admin) error { _, err := a.Delete(ctx, "zz"); return err },
			404, `{"error":{"code":"not_found","message":"no such alarm"}}`, client.IsNotFound, ""},
		{"retention held elsewhere", func(ctx context.Context, a *client.Admin) error { _, err := a.RunRetention(ctx); return err },
			409, `{"error":{"code":"conflict","message":"node n2 holds the retention lease"}}`, client.IsConflict, ""},
		{"retention disabled", func(ctx context.Context, a *client.Admin) error { _, err := a.RunRetention(ctx); return err },
			400, `{"error":{"code":"invalid","message":"retention is disabled","field":"retention"}}`, client.IsInvalid, "retention"},
	}
	for _, tc := range cases {
		c, _, _ := fakeAdmin(t, tc.status, tc.answer)
		err := tc.call(t.Context(), c.Admin())
		var e *client.Error
		if !errors.As(err, &e) || e.StatusCode != tc.status || e.Field != tc.field || e.Message == "" || !tc.is(err) {
			t.Errorf("%s: %#v (%v)", tc.name, err, err)
		}
	}
}

func TestClientAdminEmptyIDSendsNothing(t *testing.T) {
	t.Parallel()
	c, got, _ := fakeAdmin(t, 200, `{}`)
	a := c.Admin()
	for name, call := range map[string]func() error{
		"alarm":  func() error { _, err := a.Alarm(t.Context(), ""); return err },
		"events": func() error { _, err := a.Events(t.Context(), "", 0); return err },
		"retry":  func() error { _, err := a.Retry(t.Context(), ""); return err },
		"cancel": func() error { _, err := a.Cancel(t.Context(), ""); return err },
		"delete": func() error { _, err := a.Delete(t.Context(), ""); return err },
	} {
		if err := call(); err == nil {
			t.Errorf("%s with an empty id: no error", name)
		}
	}
	if got.Method != "" {
		t.Errorf("a request went out: %s %s", got.Method, got.URL)
	}
}
