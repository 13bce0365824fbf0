package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// A cron alarm created with every series option answers them back, and the view
// derives what the owner needs (remaining fires, the jittered due time).
func TestCreateWithSeriesOptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	start := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Second)
	end := start.Add(30 * 24 * time.Hour)
	a := e.create(e.alice, fmt.Sprintf(`{"kind":"cron","cron_expr":"0 9 * * *","timezone":"Europe/Berlin",
		"misfire":"catch_up","catch_up_limit":5,"catch_up_window":"36h","max_consecutive_skips":3,
		"start_at":%q,"end_at":%q,"max_fires":10,"jitter_seconds":120}`, start.Format(time.RFC3339), end.Format(time.RFC3339)))
	if *a.Misfire != "catch_up" || *a.CatchUpLimit != 5 || *a.CatchUpWindow != "36h0m0s" || *a.MaxConsecutiveSkips != 3 ||
		*a.MaxFires != 10 || *a.RemainingFires != 10 || *a.JitterSeconds != 120 || *a.FireCount != 0 || *a.SkipStreak != 0 {
		t.Errorf("series options answered back: %+v", a)
	}
	if !instant(t, a.StartAt).Equal(start) || !instant(t, a.EndAt).Equal(end) || a.PausedUntil != nil || *a.PausedReason != "" {
		t.Errorf("bounds answered back: start %v end %v paused %v %v", *a.StartAt, *a.EndAt, a.PausedUntil, *a.PausedReason)
	}
	first, due := instant(t, a.ScheduledFor), instant(t, a.NextFireAt)
	if first.Before(start) {
		t.Errorf("first occurrence %s is before start_at %s", first, start)
	}
	if jitter := due.Sub(first); jitter < 0 || jitter >= 120*time.Second {
		t.Errorf("next_fire_at is %s after scheduled_for; want a jitter in [0, 120s)", jitter)
	}

	// The defaults of a plain series, and none of it on a once alarm.
	plain := e.create(e.alice, weekdays)
	if *plain.Misfire != "fire_once" || plain.CatchUpLimit != nil || plain.RemainingFires != nil || *plain.MaxFires != 0 {
		t.Errorf("plain series: %+v", plain)
	}
	once := e.create(e.alice, `{"kind":"once","delay_seconds":60}`)
	if once.Misfire != nil || once.FireCount != nil {
		t.Errorf("a once alarm shows series members: %+v", once)
	}
}

func TestSeriesOptionsRefusedNamingTheField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct{ body, field string }{
		{`{"kind":"cron","cron_expr":"@daily","misfire":"later"}`, "misfire"},
		{`{"kind":"cron","cron_expr":"@daily","misfire":"catch_up","catch_up_limit":0}`, "catch_up_limit"},
		{`{"kind":"cron","cron_expr":"@daily","misfire":"catch_up","catch_up_limit":1001}`, "catch_up_limit"},
		{`{"kind":"cron","cron_expr":"@daily","misfire":"catch_up","catch_up_window":"soon"}`, "catch_up_window"},
		{`{"kind":"cron","cron_expr":"@daily","catch_up_limit":5}`, "catch_up_limit"},
		{`{"kind":"cron","cron_expr":"@daily","start_at":"tomorrow"}`, "start_at"},
		{`{"kind":"cron","cron_expr":"@daily","start_at":"2031-01-02T00:00:00Z","end_at":"2031-01-01T00:00:00Z"}`, "end_at"},
		{`{"kind":"cron","cron_expr":"@daily","jitter_seconds":3601}`, "jitter_seconds"},
		{`{"kind":"cron","cron_expr":"@daily","max_fires":-1}`, "max_fires"},
		{`{"kind":"once","delay_seconds":5,"misfire":"skip"}`, "misfire"},
		{`{"kind":"once","delay_seconds":5,"max_fires":3}`, "max_fires"},
	} {
		expectError(t, e.as(e.alice, "POST", "/v1/alarms", tc.body), http.StatusBadRequest, "invalid_argument", tc.field)
	}
}

func TestPauseWithNoteAndEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, weekdays)
	until := time.Now().UTC().Add(72 * time.Hour).Truncate(time.Second)
	path := "/v1/alarms/" + a.ID + "/pause"

	expectError(t, e.as(e.alice, "POST", path, `{"until":"2001-01-01T00:00:00Z"}`), http.StatusBadRequest, "invalid_argument", "until")
	expectError(t, e.as(e.alice, "POST", path, `{"until":"next week"}`), http.StatusBadRequest, "invalid_argument", "until")
	expectError(t, e.as(e.alice, "POST", path, `{"why":"x"}`), http.StatusBadRequest, "invalid_request", "why")

	p := expectAlarm(t, e.as(e.alice, "POST", path, fmt.Sprintf(`{"until":%q,"note":"office closed"}`, until.Format(time.RFC3339))))
	if p.Status != "paused" || *p.PausedReason != "office closed" || !instant(t, p.PausedUntil).Equal(until) {
		t.Fatalf("paused with a note and an end: %+v", p)
	}
	var upcoming upcomingView
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/upcoming?count=2", ""), &upcoming)
	if len(upcoming.Occurrences) != 2 || !instant(t, upcoming.Occurrences[0].ScheduledFor).After(until) {
		t.Errorf("upcoming of a series paused until %s: %+v", until, upcoming)
	}

	r := expectAlarm(t, e.act(e.alice, "resume", a.ID))
	if r.Status != "active" || *r.PausedReason != "" || r.PausedUntil != nil {
		t.Errorf("resumed: %+v; want the note and end cleared", r)
	}
	// A plain pause still takes no body.
	if p := expectAlarm(t, e.act(e.alice, "pause", a.ID)); p.Status != "paused" || p.PausedUntil != nil {
		t.Errorf("plain pause: %+v", p)
	}
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/upcoming", ""), &upcoming)
	if len(upcoming.Occurrences) != 0 {
		t.Errorf("a series paused without an end has upcoming %+v", upcoming)
	}
}

func TestSkipNextOccurrence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, `{"kind":"cron","cron_expr":"0 9 * * *","timezone":"UTC"}`)
	s := expectAlarm(t, e.act(e.alice, "skip", a.ID))
	if got, want := instant(t, s.ScheduledFor), instant(t, a.ScheduledFor).Add(24*time.Hour); !got.Equal(want) {
		t.Errorf("after skip scheduled_for = %s, want %s", got, want)
	}
	var events struct {
		Events []eventView `json:"events"`
	}
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/events", ""), &events)
	last := events.Events[len(events.Events)-1]
	if last.Type != "skipped" || last.Message != "skipped by the owner" || *last.ScheduledFor != *a.ScheduledFor {
		t.Errorf("last event %+v; want the skipped occurrence recorded", last)
	}
	once := e.create(e.alice, `{"kind":"once","delay_seconds":60}`)
	expectError(t, e.act(e.alice, "skip", once.ID), http.StatusConflict, "invalid_state", "")
	expectError(t, e.act(e.bob, "skip", a.ID), http.StatusNotFound, "not_found", "")
}

func TestUpcomingAndPreview(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(e.alice, `{"kind":"cron","cron_expr":"0 9 * * *","timezone":"UTC","max_fires":3}`)
	var up upcomingView
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/upcoming?count=10", ""), &up)
	if len(up.Occurrences) != 3 {
		t.Fatalf("upcoming of a series with 3 fires left: %d occurrences", len(up.Occurrences))
	}
	for i, o := range up.Occurrences {
		at := instant(t, o.ScheduledFor)
		if o.OccurrenceKey != a.ID+"/"+at.Format(time.RFC3339) {
			t.Errorf("occurrence %d key %q", i, o.OccurrenceKey)
		}
		if i > 0 && at.Sub(instant(t, up.Occurrences[i-1].ScheduledFor)) != 24*time.Hour {
			t.Errorf("occurrence %d at %s", i, at)
		}
	}
	expectError(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID+"/upcoming?count=0", ""), http.StatusBadRequest, "invalid_argument", "count")
	expectError(t, e.as(e.bob, "GET", "/v1/alarms/"+a.ID+"/upcoming", ""), http.StatusNotFound, "not_found", "")

	var pre struct {
		Occurrences []struct {
			ScheduledFor *string `json:"scheduled_for"`
		} `json:"occurrences"`
	}
	// 09:00 New York on weekdays, across the spring-forward Sunday.
	decodeStrict(t, e.as(e.alice, "POST", "/v1/schedules/preview",
		`{"cron_expr":"0 9 * * 1-5","timezone":"America/New_York","from":"2025-03-07T00:00:00Z","count":3}`), &pre)
	var got []string
	for _, o := range pre.Occurrences {
		got = append(got, instant(t, o.ScheduledFor).Format(time.RFC3339))
	}
	if fmt.Sprint(got) != "[2025-03-07T14:00:00Z 2025-03-10T13:00:00Z 2025-03-11T13:00:00Z]" {
		t.Errorf("preview = %v", got)
	}
	for _, tc := range []struct{ body, field string }{
		{`{"cron_expr":"0 9 * * *","timezone":"Mars/Olympus"}`, "timezone"},
		{`{"cron_expr":"61 * * * *"}`, "cron_expr"},
		{`{"timezone":"UTC"}`, "cron_expr"},
		{`{"cron_expr":"@daily","count":101}`, "count"},
		{`{"cron_expr":"@daily","from":"yesterday"}`, "from"},
	} {
		expectError(t, e.as(e.alice, "POST", "/v1/schedules/preview", tc.body), http.StatusBadRequest, "invalid_argument", tc.field)
	}
}

func TestBackfill(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.create(e.alice, `{"kind":"cron","cron_expr":"0 9 * * *","timezone":"UTC","label":"report"}`)
	day := time.Now().UTC().Truncate(24 * time.Hour)
	from, to := day.Add(-5*24*time.Hour), day.Add(-24*time.Hour) // 9:00 on four days
	body := fmt.Sprintf(`{"from":%q,"to":%q}`, from.Format(time.RFC3339), to.Format(time.RFC3339))
	path := "/v1/alarms/" + s.ID + "/backfill"

	var out struct {
		Alarm       alarmView `json:"alarm"`
		Deduped     bool      `json:"deduped"`
		Occurrences int       `json:"occurrences"`
		Truncated   bool      `json:"truncated"`
	}
	res := e.as(e.alice, "POST", path, body)
	if res.status != http.StatusCreated || res.header.Get("Location") == "" {
		t.Fatalf("backfill: %d %s", res.status, res.body)
	}
	decodeStrict(t, res, &out)
	b := out.Alarm
	if out.Deduped || out.Occurrences != 4 || out.Truncated || *b.BackfillOf != s.ID || b.Label != "backfill: report" ||
		instant(t, b.ScheduledFor) != from.Add(9*time.Hour) || *b.Misfire != "catch_up" {
		t.Errorf("backfill answer: %+v %+v", out, b)
	}
	// Its upcoming occurrences carry the series' keys, as its wakes do.
	var up upcomingView
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms/"+b.ID+"/upcoming?count=10", ""), &up)
	if len(up.Occurrences) != 4 || up.Occurrences[0].OccurrenceKey != s.ID+"/"+from.Add(9*time.Hour).Format(time.RFC3339) {
		t.Errorf("the backfill's upcoming: %+v", up)
	}
	// The same window again: the same backfill.
	res = e.as(e.alice, "POST", path, body)
	decodeStrict(t, res, &out)
	if res.status != http.StatusOK || !out.Deduped || out.Alarm.ID != b.ID {
		t.Errorf("repeated backfill: %d %+v", res.status, out)
	}
	// The series itself did not move.
	if got := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+s.ID, "")); *got.ScheduledFor != *s.ScheduledFor {
		t.Errorf("the series moved: %s, was %s", *got.ScheduledFor, *s.ScheduledFor)
	}
	for _, tc := range []struct{ body, field string }{
		{`{"from":"2020-01-01T00:00:00Z"}`, "to"},
		{fmt.Sprintf(`{"from":%q,"to":%q}`, to.Format(time.RFC3339), from.Format(time.RFC3339)), "to"},
		{fmt.Sprintf(`{"from":%q,"to":"2099-01-01T00:00:00Z"}`, from.Format(time.RFC3339)), "to"},
		{`{"from":"last week","to":"2020-01-01T00:00:00Z"}`, "from"},
	} {
		expectError(t, e.as(e.alice, "POST", path, tc.body), http.StatusBadRequest, "invalid_argument", tc.field)
	}
	once := e.create(e.alice, `{"kind":"once","delay_seconds":60}`)
	expectError(t, e.as(e.alice, "POST", "/v1/alarms/"+once.ID+"/backfill", body), http.StatusConflict, "invalid_state", "")
	expectError(t, e.as(e.bob, "POST", path, body), http.StatusNotFound, "not_found", "")
}

// upcomingView is the answer of GET /v1/alarms/{id}/upcoming.
type upcomingView struct {
	Occurrences []struct {
		ScheduledFor  *string `json:"scheduled_for"`
		DueAt         *string `json:"due_at"`
		OccurrenceKey string  `json:"occurrence_key"`
	} `json:"occurrences"`
}

// A backfill delivers its series' occurrences under its series' occurrence keys, and
// its history and attempt log (the owner's and the operator's) show the very key its
// wake carried in Idempotency-Key, so a receiver can match them.
func TestBackfillEventsCarryTheWakesKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.create(e.alice, `{"kind":"cron","cron_expr":"0 9 * * *","timezone":"UTC","label":"report"}`)
	day := time.Now().UTC().Truncate(24 * time.Hour)
	from := day.Add(-3 * 24 * time.Hour)
	body := fmt.Sprintf(`{"from":%q,"to":%q}`, from.Format(time.RFC3339), from.Add(24*time.Hour).Format(time.RFC3339))
	var out struct {
		Alarm       alarmView `json:"alarm"`
		Deduped     bool      `json:"deduped"`
		Occurrences int       `json:"occurrences"`
		Truncated   bool      `json:"truncated"`
	}
	res := e.as(e.alice, "POST", "/v1/alarms/"+s.ID+"/backfill", body)
	if res.status != http.StatusCreated {
		t.Fatalf("backfill: %d %s", res.status, res.body)
	}
	decodeStrict(t, res, &out)
	b := out.Alarm

	// Fire its first occurrence as a dispatcher does: the wake through the webhook to a
	// receiver, then the outcome with its receipt.
	keys := make(chan string, 1)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys <- r.Header.Get("Idempotency-Key")
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(recv.Close)
	waker, err := webhook.New(webhook.Options{URL: recv.URL, Secret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.store.ClaimDue(e.ctx, ports.ClaimParams{Worker: "api-test", Lease: time.Minute, Batch: 10})
	if err != nil || len(c.Alarms) != 1 || c.Alarms[0].ID != b.ID {
		t.Fatalf("claiming the backfill: %v, %d alarms", err, len(c.Alarms))
	}
	firing := domain.Begin(c.Alarms[0], c.Now, domain.Policy{})
	if firing.Skip != nil {
		t.Fatalf("the backfill's occurrence is skipped: %+v", firing.Skip)
	}
	answer, err := waker.WakeResponse(e.ctx, domain.NewWake(c.Alarms[0], c.Now))
	if err != nil {
		t.Fatal(err)
	}
	key := <-keys
	if want := s.ID + "/" + from.Add(9*time.Hour).Format(time.RFC3339); key != want {
		t.Errorf("the wake's Idempotency-Key = %q, want the series' %q", key, want)
	}
	o := domain.Delivered()
	o.Receipt = &domain.Receipt{Duration: time.Millisecond, Status: answer.Status}
	if r, err := e.store.Apply(e.ctx, []domain.Transition{domain.Decide(firing, o, c.Now, domain.Policy{})}); err != nil || r.Applied != 1 {
		t.Fatalf("recording the delivery: %+v, %v", r, err)
	}

	for _, who := range []struct{ token, prefix string }{{e.alice, "/v1/alarms/"}, {e.ops, "/admin/v1/alarms/"}} {
		var events struct {
			Events []eventView `json:"events"`
		}
		decodeStrict(t, e.as(who.token, "GET", who.prefix+b.ID+"/events", ""), &events)
		n := 0
		for _, ev := range events.Events {
			if ev.ScheduledFor != nil {
				n++
				if ev.OccurrenceKey != key {
					t.Errorf("%s events: %s event's occurrence key %q, want the wake's %q", who.prefix, ev.Type, ev.OccurrenceKey, key)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s events: none of an occurrence: %+v", who.prefix, events.Events)
		}
		var attempts attemptsPage
		decodeStrict(t, e.as(who.token, "GET", who.prefix+b.ID+"/attempts", ""), &attempts)
		if len(attempts.Attempts) != 1 || attempts.Attempts[0].OccurrenceKey != key {
			t.Errorf("%s attempts: %+v, want one with the wake's key %q", who.prefix, attempts.Attempts, key)
		}
	}
}
