package client_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
)

func TestClientCreateWithSeriesOptions(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	start := time.Now().Add(time.Hour).Truncate(time.Second).UTC()
	end := start.Add(30 * 24 * time.Hour)
	a, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{
		CronExpr: "0 9 * * *", Timezone: "Europe/Paris",
		Misfire: domain.MisfireCatchUp, CatchUpLimit: 5, CatchUpWindow: "36h",
		MaxConsecutiveSkips: 3, StartAt: start, EndAt: end, MaxFires: 10, JitterSeconds: 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(how string, a client.Alarm) {
		t.Helper()
		if a.Misfire != domain.MisfireCatchUp || a.CatchUpLimit != 5 || a.CatchUpWindow != "36h0m0s" ||
			a.MaxConsecutiveSkips != 3 || !a.StartAt.Equal(start) || !a.EndAt.Equal(end) || a.MaxFires != 10 ||
			a.RemainingFires == nil || *a.RemainingFires != 10 || a.JitterSeconds != 30 ||
			a.FireCount != 0 || a.SkipStreak != 0 || a.PausedReason != "" || !a.PausedUntil.IsZero() {
			t.Errorf("%s: series members %+v (remaining %v)", how, a, a.RemainingFires)
		}
		if a.ScheduledFor.Before(start) {
			t.Errorf("%s: scheduled_for %s is before start_at %s", how, a.ScheduledFor, start)
		}
	}
	check("create", a)
	got, err := s.alice.GetAlarm(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("get", got)

	// The API's nulls read as the zero values, and a once alarm has none of the members.
	plain, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{CronExpr: "@hourly"})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Misfire != domain.MisfireFireOnce || plain.CatchUpLimit != 0 || plain.CatchUpWindow != "" ||
		!plain.StartAt.IsZero() || !plain.EndAt.IsZero() || plain.RemainingFires != nil {
		t.Errorf("a plain series: %+v (remaining %v)", plain, plain.RemainingFires)
	}
	once, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if once.Misfire != "" || once.RemainingFires != nil {
		t.Errorf("a once alarm has series members: %+v", once)
	}
	// The options are a series'; on a once alarm the refusal names the option.
	_, _, err = s.alice.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Hour, MaxFires: 2})
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusBadRequest || e.Field != "max_fires" {
		t.Errorf("max_fires on a once alarm: %v; want a 400 on max_fires", err)
	}
}

func TestClientPauseWithUntilAndNote(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	a, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{CronExpr: "@hourly"})
	if err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(48 * time.Hour).Truncate(time.Second).UTC()
	p, err := s.alice.PauseAlarmWith(ctx, a.ID, client.PauseAlarm{Until: until, Note: "maintenance window"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != domain.StatusPaused || p.PausedReason != "maintenance window" || !p.PausedUntil.Equal(until) ||
		!p.NextFireAt.IsZero() {
		t.Errorf("paused: status %s reason %q until %s next %s", p.Status, p.PausedReason, p.PausedUntil, p.NextFireAt)
	}
	// A pause with an end says where the series will resume.
	next, err := s.alice.UpcomingOccurrences(ctx, a.ID, 1)
	if err != nil || len(next) != 1 || next[0].ScheduledFor.Before(until) {
		t.Errorf("upcoming while paused until %s: %+v, %v", until, next, err)
	}

	// A zero PauseAlarm is a plain pause: it leaves a paused alarm as it is...
	same, err := s.alice.PauseAlarmWith(ctx, a.ID, client.PauseAlarm{})
	if err != nil || same.PausedReason != "maintenance window" {
		t.Errorf("pausing again without a body: reason %q, %v", same.PausedReason, err)
	}
	// ...and an end in the past is refused, naming it.
	if _, err := s.alice.ResumeAlarm(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.alice.PauseAlarmWith(ctx, a.ID, client.PauseAlarm{Until: time.Now().Add(-time.Hour)})
	var e *client.Error
	if !errors.As(err, &e) || e.Field != "until" || !client.IsInvalid(err) {
		t.Errorf("until in the past: %v; want a 400 on until", err)
	}
}

func TestClientSkipNextAndUpcoming(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	a, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{CronExpr: "0 * * * *", JitterSeconds: 60})
	if err != nil {
		t.Fatal(err)
	}
	up, err := s.alice.UpcomingOccurrences(ctx, a.ID, 3)
	if err != nil || len(up) != 3 {
		t.Fatalf("upcoming 3: %d, %v", len(up), err)
	}
	if !up[0].ScheduledFor.Equal(a.ScheduledFor) || !up[0].DueAt.Equal(a.NextFireAt) {
		t.Errorf("the first upcoming %+v is not the current occurrence (%s due %s)", up[0], a.ScheduledFor, a.NextFireAt)
	}
	for i, o := range up {
		if o.OccurrenceKey == "" || o.DueAt.Before(o.ScheduledFor) || o.DueAt.After(o.ScheduledFor.Add(time.Minute)) {
			t.Errorf("occurrence %d: %+v; want a key and a due time within the jitter", i, o)
		}
		if i > 0 && o.ScheduledFor.Sub(up[i-1].ScheduledFor) != time.Hour {
			t.Errorf("occurrence %d at %s, an hour after %s expected", i, o.ScheduledFor, up[i-1].ScheduledFor)
		}
	}
	if all, err := s.alice.UpcomingOccurrences(ctx, a.ID, 0); err != nil || len(all) != 10 {
		t.Errorf("upcoming with the default count: %d, %v; want 10", len(all), err)
	}

	skipped, err := s.alice.SkipNext(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if skipped.Status != domain.StatusActive || !skipped.ScheduledFor.Equal(up[1].ScheduledFor) {
		t.Errorf("after skip: %s scheduled for %s; want active at %s", skipped.Status, skipped.ScheduledFor, up[1].ScheduledFor)
	}
	events, err := s.alice.AlarmEvents(ctx, a.ID, 0)
	if err != nil || len(events) != 2 || events[1].Type != domain.EventSkipped || !events[1].ScheduledFor.Equal(up[0].ScheduledFor) {
		t.Errorf("events after skip: %+v, %v", events, err)
	}

	once, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.alice.SkipNext(ctx, once.ID); !client.IsInvalidState(err) {
		t.Errorf("skipping a once alarm: %v; want invalid_state", err)
	}
	var e *client.Error
	if _, err := s.alice.UpcomingOccurrences(ctx, a.ID, 101); !errors.As(err, &e) || e.Field != "count" {
		t.Errorf("count 101: %v; want a 400 on count", err)
	}
}

func TestClientPreviewSchedule(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	// 9:00 in Paris across the spring change of 2030 (Sunday 31 March): 08:00Z, then 07:00Z.
	got, err := s.alice.PreviewSchedule(ctx, client.PreviewSchedule{
		CronExpr: "0 9 * * *", Timezone: "Europe/Paris",
		From: time.Date(2030, 3, 30, 0, 0, 0, 0, time.UTC), Count: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Time{
		time.Date(2030, 3, 30, 8, 0, 0, 0, time.UTC),
		time.Date(2030, 3, 31, 7, 0, 0, 0, time.UTC),
		time.Date(2030, 4, 1, 7, 0, 0, 0, time.UTC),
	}
	if !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Errorf("preview %v, want %v", got, want)
	}
	if def, err := s.alice.PreviewSchedule(ctx, client.PreviewSchedule{CronExpr: "@hourly"}); err != nil ||
		len(def) != 10 || !def[0].After(time.Now().Add(-time.Minute)) {
		t.Errorf("preview with the defaults: %v, %v; want ten from now", def, err)
	}

	for _, tc := range []struct {
		req   client.PreviewSchedule
		field string
	}{
		{client.PreviewSchedule{CronExpr: "0 9 * * *", Timezone: "Mars/Olympus_Mons"}, "timezone"},
		{client.PreviewSchedule{CronExpr: "every tuesday"}, "cron_expr"},
		{client.PreviewSchedule{CronExpr: "@hourly", Count: 101}, "count"},
	} {
		_, err := s.alice.PreviewSchedule(ctx, tc.req)
		var e *client.Error
		if !errors.As(err, &e) || e.StatusCode != http.StatusBadRequest || e.Code != "invalid_argument" || e.Field != tc.field {
			t.Errorf("preview %+v: %v; want a 400 invalid_argument on %s", tc.req, err, tc.field)
		}
	}
}

func TestClientUpdateAlarm(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	end := time.Now().Add(90 * 24 * time.Hour).Truncate(time.Second).UTC()
	a, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{CronExpr: "0 9 * * *", Label: "standup", EndAt: end, MaxFires: 5})
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.alice.UpdateAlarm(ctx, a.ID, client.UpdateAlarm{Label: new("stand-up"), CronExpr: new("30 9 * * 1-5")})
	if err != nil {
		t.Fatal(err)
	}
	if u.Label != "stand-up" || u.CronExpr != "30 9 * * 1-5" || !u.EndAt.Equal(end) || u.MaxFires != 5 ||
		u.ScheduledFor.UTC().Minute() != 30 {
		t.Errorf("updated: label %q cron %q end %s max_fires %d scheduled for %s", u.Label, u.CronExpr, u.EndAt, u.MaxFires, u.ScheduledFor)
	}
	// A pointer to the zero time clears a bound; new(0) is 0, not "leave it".
	u, err = s.alice.UpdateAlarm(ctx, a.ID, client.UpdateAlarm{EndAt: new(time.Time{}), MaxFires: new(0),
		Payload: []byte(`{ "room": "B" }`)})
	if err != nil {
		t.Fatal(err)
	}
	if !u.EndAt.IsZero() || u.MaxFires != 0 || u.RemainingFires != nil || u.Label != "stand-up" || string(u.Payload) != `{ "room": "B" }` {
		t.Errorf("after clearing: end %s max_fires %d remaining %v label %q payload %s", u.EndAt, u.MaxFires, u.RemainingFires, u.Label, u.Payload)
	}
	events, err := s.alice.AlarmEvents(ctx, a.ID, 0)
	if err != nil || len(events) != 3 || events[1].Type != domain.EventUpdated || events[2].Type != domain.EventUpdated {
		t.Errorf("events: %+v, %v; want created and two updated", events, err)
	}

	once, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, id string
		req      client.UpdateAlarm
		field    string
	}{
		{"jitter out of range", a.ID, client.UpdateAlarm{JitterSeconds: new(99999)}, "jitter_seconds"},
		{"a bad zone", a.ID, client.UpdateAlarm{Timezone: new("Mars/Olympus_Mons")}, "timezone"},
		{"a schedule for a once alarm", once.ID, client.UpdateAlarm{CronExpr: new("@hourly")}, "cron_expr"},
	} {
		_, err := s.alice.UpdateAlarm(ctx, tc.id, tc.req)
		var e *client.Error
		if !errors.As(err, &e) || e.StatusCode != http.StatusBadRequest || e.Field != tc.field || !client.IsInvalid(err) {
			t.Errorf("%s: %v; want a 400 on %s", tc.name, err, tc.field)
		}
	}
	if _, err := s.bob.UpdateAlarm(ctx, a.ID, client.UpdateAlarm{Label: new("mine")}); !client.IsNotFound(err) {
		t.Errorf("bob updating alice's alarm: %v; want not_found", err)
	}
}

// TestClientSeriesRequestBodies checks what goes on the wire: a plain pause sends no
// body, an update sends only what was set, null for a cleared bound, and the payload as
// written.
func TestClientSeriesRequestBodies(t *testing.T) {
	t.Parallel()
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.URL.RequestURI()+" "+string(b))
		_, _ = w.Write([]byte(`{"alarm":{"id":"a"},"occurrences":[]}`))
	}))
	defer srv.Close()
	c, err := client.New(srv.URL, "chr_x")
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	until := time.Date(2030, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600))
	_, _ = c.PauseAlarmWith(ctx, "a", client.PauseAlarm{})
	_, _ = c.PauseAlarmWith(ctx, "a", client.PauseAlarm{Until: until, Note: "n"})
	_, _ = c.SkipNext(ctx, "a")
	_, _ = c.UpcomingOccurrences(ctx, "a", 0)
	_, _ = c.UpcomingOccurrences(ctx, "a", 5)
	_, _ = c.PreviewSchedule(ctx, client.PreviewSchedule{CronExpr: "@daily"})
	_, _ = c.UpdateAlarm(ctx, "a", client.UpdateAlarm{Label: new(""), StartAt: &until, EndAt: new(time.Time{}),
		Payload: []byte(` [1,  2] `)})
	_, _ = c.UpdateAlarm(ctx, "a", client.UpdateAlarm{Payload: []byte(`null`)})
	want := []string{
		"POST /v1/alarms/a/pause ",
		`POST /v1/alarms/a/pause {"until":"2030-01-02T02:04:05Z","note":"n"}`,
		"POST /v1/alarms/a/skip ",
		"GET /v1/alarms/a/upcoming ",
		"GET /v1/alarms/a/upcoming?count=5 ",
		`POST /v1/schedules/preview {"cron_expr":"@daily"}`,
		`PATCH /v1/alarms/a {"label":"","start_at":"2030-01-02T02:04:05Z","end_at":null,"payload":[1,  2]}`,
		`PATCH /v1/alarms/a {"payload":null}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("requests:\n%q\nwant:\n%q", got, want)
	}
	if _, err := c.UpdateAlarm(ctx, "a", client.UpdateAlarm{Payload: []byte(`{`)}); err == nil || len(got) != len(want) {
		t.Errorf("an update with a payload that is not JSON: %v, sent: %t", err, len(got) != len(want))
	}
}
