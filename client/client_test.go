package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
)

func TestClientCreateGetCancel(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	payload := []byte(`{ "cups" : 2,  "tea": "<green>" }`) // whitespace and <> must survive
	before := time.Now()
	a, deduped, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{
		Delay:          time.Minute,
		Label:          "tea",
		WakeMessage:    "the tea is ready",
		ConversationID: "conv-1",
		Payload:        payload,
		Delivery:       domain.AtMostOnce,
		MaxFailures:    3,
	})
	if err != nil || deduped {
		t.Fatalf("CreateAlarm: deduped %t, %v", deduped, err)
	}
	if a.ID == "" || a.Kind != domain.KindOnce || a.Status != domain.StatusActive || a.Label != "tea" ||
		a.WakeMessage != "the tea is ready" || a.ConversationID != "conv-1" || a.Delivery != domain.AtMostOnce ||
		a.MaxFailures != 3 || string(a.Payload) != string(payload) {
		t.Errorf("created alarm %+v (payload %s)", a, a.Payload)
	}
	if d := a.FireAt.Sub(before.Add(time.Minute)); d < -5*time.Second || d > 5*time.Second {
		t.Errorf("fire_at %s, want about a minute from %s", a.FireAt, before)
	}
	if !a.NextFireAt.Equal(a.FireAt) || a.CreatedAt.IsZero() || !a.LastFiredAt.IsZero() {
		t.Errorf("times: next %s fire %s created %s last fired %s", a.NextFireAt, a.FireAt, a.CreatedAt, a.LastFiredAt)
	}

	got, err := s.alice.GetAlarm(ctx, a.ID)
	if err != nil || got.ID != a.ID || string(got.Payload) != string(payload) {
		t.Errorf("GetAlarm: %+v, %v", got, err)
	}
	c, err := s.alice.CancelAlarm(ctx, a.ID)
	if err != nil || c.Status != domain.StatusCancelled || !c.NextFireAt.IsZero() {
		t.Errorf("CancelAlarm: %+v, %v; want cancelled with no next_fire_at", c, err)
	}
}

func TestClientCreateAtAndDeduped(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	at := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	req := client.CreateAlarm{FireAt: at, IdempotencyKey: "k1"}
	a, deduped, err := s.alice.CreateAlarm(ctx, req)
	if err != nil || deduped || !a.FireAt.Equal(at) || string(a.Payload) != "null" {
		t.Fatalf("first create: %+v deduped %t, %v", a, deduped, err)
	}
	again, deduped, err := s.alice.CreateAlarm(ctx, req)
	if err != nil || !deduped || again.ID != a.ID {
		t.Errorf("repeat: id %s deduped %t, %v; want %s deduped", again.ID, deduped, err, a.ID)
	}
	// The key is the owner's: bob's identical request makes his own alarm.
	if b, deduped, err := s.bob.CreateAlarm(ctx, req); err != nil || deduped || b.ID == a.ID {
		t.Errorf("bob's create: %s deduped %t, %v", b.ID, deduped, err)
	}
}

func TestClientCronLifecycleAndEvents(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	a, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{CronExpr: "0 9 * * 1-5", Timezone: "Europe/Paris"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != domain.KindCron || a.Timezone != "Europe/Paris" || a.NextFireAt.IsZero() {
		t.Errorf("cron alarm %+v", a)
	}
	steps := []struct {
		name string
		do   func(context.Context, string) (client.Alarm, error)
		want domain.Status
	}{
		{"pause", s.alice.PauseAlarm, domain.StatusPaused},
		{"resume", s.alice.ResumeAlarm, domain.StatusActive},
		{"trigger", s.alice.TriggerAlarm, domain.StatusActive},
		{"cancel", s.alice.CancelAlarm, domain.StatusCancelled},
	}
	for _, st := range steps {
		got, err := st.do(ctx, a.ID)
		if err != nil || got.Status != st.want {
			t.Fatalf("%s: status %s, %v; want %s", st.name, got.Status, err, st.want)
		}
	}
	events, err := s.alice.AlarmEvents(ctx, a.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for i, e := range events {
		types = append(types, string(e.Type))
		// The created event is built from the alarm (id 0); every other one is stored.
		if e.At.IsZero() || (e.ID == 0) != (i == 0) {
			t.Errorf("event %d %+v: no time, or an id other than 0 for created and a stored id for the rest", i, e)
		}
	}
	if want := "created paused resumed triggered cancelled"; strings.Join(types, " ") != want {
		t.Errorf("events %v, want %s", types, want)
	}
	if two, err := s.alice.AlarmEvents(ctx, a.ID, 2); err != nil || len(two) != 2 {
		t.Errorf("events with limit 2: %d, %v", len(two), err)
	}
}

func TestClientListAlarmsPages(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	made := map[string]bool{}
	for range 5 {
		a, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		made[a.ID] = true
	}
	cron, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{CronExpr: "@hourly"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.alice.PauseAlarm(ctx, cron.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.bob.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}

	page, err := s.alice.ListAlarms(ctx, client.ListAlarms{Status: domain.StatusActive, Limit: 2})
	if err != nil || len(page.Alarms) != 2 || page.NextCursor == "" {
		t.Fatalf("first page: %d alarms, cursor %q, %v", len(page.Alarms), page.NextCursor, err)
	}
	seen := map[string]bool{}
	for a, err := range s.alice.AllAlarms(ctx, client.ListAlarms{Status: domain.StatusActive, Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[a.ID] || !made[a.ID] {
			t.Errorf("alarm %s listed twice or not alice's active one", a.ID)
		}
		seen[a.ID] = true
	}
	if len(seen) != len(made) {
		t.Errorf("AllAlarms saw %d alarms, want %d", len(seen), len(made))
	}
	paused, err := s.alice.ListAlarms(ctx, client.ListAlarms{Status: domain.StatusPaused})
	if err != nil || len(paused.Alarms) != 1 || paused.Alarms[0].ID != cron.ID || paused.NextCursor != "" {
		t.Errorf("paused: %+v, %v", paused, err)
	}
}

func TestClientCreateAlarmsBatch(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	results, err := s.alice.CreateAlarms(ctx, []client.CreateAlarm{
		{Delay: time.Minute, IdempotencyKey: "b1", Payload: []byte(`[1, 2]`)},
		{CronExpr: "not a cron"},
		{Delay: time.Minute, IdempotencyKey: "b1"},
	})
	if err != nil || len(results) != 3 {
		t.Fatalf("CreateAlarms: %d results, %v", len(results), err)
	}
	if r := results[0]; r.Err != nil || r.Deduped || string(r.Alarm.Payload) != `[1, 2]` {
		t.Errorf("item 0: %+v", r)
	}
	var e *client.Error
	if !errors.As(results[1].Err, &e) || e.Field != "cron_expr" || e.StatusCode != 0 || !client.IsInvalid(e) {
		t.Errorf("item 1: %v; want an *Error on cron_expr with no status", results[1].Err)
	}
	if r := results[2]; r.Err != nil || r.Alarm.ID != results[0].Alarm.ID {
		t.Errorf("item 2: %+v; want item 0's alarm", r)
	}
	// A refusal of the whole call is the call's error.
	_, err = s.alice.CreateAlarms(ctx, nil)
	if !errors.As(err, &e) || e.StatusCode != http.StatusBadRequest || e.Field != "alarms" {
		t.Errorf("empty batch: %v; want 400 on alarms", err)
	}
}

// TestClientErrorMapping checks that the API's error envelope becomes an *Error with its
// status, code, message and field, and that the helpers recognise each.
func TestClientErrorMapping(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	once, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := client.New(s.srv.URL, "chr_nobody", client.WithHTTPClient(s.srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		call   func() error
		status int
		code   string
		field  string
		is     func(error) bool
	}{
		{"unknown token", func() error { _, err := stranger.GetAlarm(ctx, once.ID); return err },
			401, "unauthenticated", "", client.IsUnauthenticated},
		{"unknown id", func() error { _, err := s.alice.GetAlarm(ctx, "no-such-alarm"); return err },
			404, "not_found", "", client.IsNotFound},
		{"another owner's alarm", func() error { _, err := s.bob.CancelAlarm(ctx, once.ID); return err },
			404, "not_found", "", client.IsNotFound},
		{"id with a slash", func() error { _, err := s.alice.GetAlarm(ctx, "a/b"); return err },
			404, "not_found", "", client.IsNotFound},
		{"events of an unknown id", func() error { _, err := s.alice.AlarmEvents(ctx, "nope", 0); return err },
			404, "not_found", "", client.IsNotFound},
		{"bad cron", func() error {
			_, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{CronExpr: "every tuesday"})
			return err
		}, 400, "invalid_argument", "cron_expr", client.IsInvalid},
		{"limit out of range", func() error {
			_, err := s.alice.ListAlarms(ctx, client.ListAlarms{Limit: 100000})
			return err
		}, 400, "invalid_argument", "limit", client.IsInvalid},
		{"bad status", func() error {
			_, err := s.alice.ListAlarms(ctx, client.ListAlarms{Status: "sleeping"})
			return err
		}, 400, "invalid_argument", "status", client.IsInvalid},
		{"pausing a once alarm", func() error { _, err := s.alice.PauseAlarm(ctx, once.ID); return err },
			409, "invalid_state", "", client.IsInvalidState},
	}
	for _, tc := range cases {
		err := tc.call()
		var e *client.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v (%T), want an *Error", tc.name, err, err)
			continue
		}
		if e.StatusCode != tc.status || e.Code != tc.code || e.Field != tc.field || e.Message == "" {
			t.Errorf("%s: %+v; want %d %s field %q with a message", tc.name, e, tc.status, tc.code, tc.field)
		}
		if !tc.is(err) {
			t.Errorf("%s: the helper does not recognise %v", tc.name, err)
		}
		if tc.status == 409 && !client.IsConflict(err) {
			t.Errorf("%s: IsConflict false for a 409", tc.name)
		}
		if client.IsNotFound(err) != (tc.status == 404) {
			t.Errorf("%s: IsNotFound is %t", tc.name, !(tc.status == 404))
		}
	}
}

func TestClientNonJSONErrorBody(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html><body>502 Bad Gateway</body></html>\n"))
	}))
	defer srv.Close()
	c, err := client.New(srv.URL, "chr_x")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetAlarm(t.Context(), "a")
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 502 || e.Code != "" || !strings.Contains(e.Message, "502 Bad Gateway") {
		t.Fatalf("got %#v (%v); want an *Error with status 502 and the body as message", err, err)
	}
	if got := e.Error(); got != "chronos: 502 <html><body>502 Bad Gateway</body></html>" {
		t.Errorf("Error() = %q", got)
	}
}

func TestClientEmptyErrorBodyUsesStatusText(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL, "chr_x")
	_, err := c.ListAlarms(t.Context(), client.ListAlarms{})
	var e *client.Error
	if !errors.As(err, &e) || e.Message != "Service Unavailable" || !client.IsUnavailable(err) {
		t.Errorf("got %v; want 503 Service Unavailable", err)
	}
}

func TestClientNewRefusesBadArguments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, token string }{
		{"", "chr_x"},
		{"127.0.0.1:8080", "chr_x"},
		{"ftp://example.com", "chr_x"},
		{"http://", "chr_x"},
		{"http://example.com/?a=b", "chr_x"},
		{"http://example.com", ""},
	} {
		if _, err := client.New(tc.url, tc.token); err == nil {
			t.Errorf("New(%q, %q) accepted", tc.url, tc.token)
		}
	}
}

func TestClientPathPrefixHeadersAndEmptyID(t *testing.T) {
	t.Parallel()
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		_, _ = w.Write([]byte(`{"alarm":{"id":"x/y"}}`))
	}))
	defer srv.Close()
	c, err := client.New(srv.URL+"/chronos/", "chr_secret", client.WithUserAgent("tests/1"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.PauseAlarm(t.Context(), "x/y")
	if err != nil || a.ID != "x/y" {
		t.Fatalf("PauseAlarm: %+v, %v", a, err)
	}
	if got.Method != "POST" || got.URL.EscapedPath() != "/chronos/v1/alarms/x%2Fy/pause" ||
		got.Header.Get("Authorization") != "Bearer chr_secret" || got.Header.Get("User-Agent") != "tests/1" {
		t.Errorf("request %s %s auth %q ua %q", got.Method, got.URL.EscapedPath(), got.Header.Get("Authorization"), got.UserAgent())
	}
	got = nil
	if _, err := c.GetAlarm(t.Context(), ""); err == nil || got != nil {
		t.Errorf("an empty id: %v, request sent: %t", err, got != nil)
	}
}

func TestClientContextErrorsPassThrough(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := s.alice.ListAlarms(ctx, client.ListAlarms{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want context.Canceled through the wrapping", err)
	}
	var e *client.Error
	if errors.As(err, &e) {
		t.Errorf("a transport failure became an *Error: %v", e)
	}
}

func TestClientRefusesInvalidPayload(t *testing.T) {
	t.Parallel()
	c, _ := client.New("http://127.0.0.1:1", "chr_x")
	if _, _, err := c.CreateAlarm(t.Context(), client.CreateAlarm{Payload: []byte(`{"a":`)}); err == nil {
		t.Error("a payload that is not JSON was sent")
	}
}
