package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestCLIAlarmCreateWithSeriesOptions(t *testing.T) {
	t.Parallel()
	s := newCLIServer(t)
	start := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	end := time.Now().Add(30 * 24 * time.Hour).UTC().Format(time.RFC3339)
	out := s.mustCLI(t, "alarm", "create", "--cron", "0 9 * * *", "--timezone", "Europe/Paris",
		"--misfire", "catch_up", "--catch-up-limit", "5", "--catch-up-window", "36h", "--max-consecutive-skips", "3",
		"--start-at", start, "--end-at", end, "--max-fires", "10", "--jitter-seconds", "30")
	for key, want := range map[string]string{
		"timezone": "Europe/Paris", "misfire": "catch_up", "catch_up_limit": "5", "catch_up_window": "36h0m0s",
		"max_consecutive_skips": "3", "start_at": start, "end_at": end, "max_fires": "10", "remaining_fires": "10",
		"jitter_seconds": "30", "fire_count": "0", "skip_streak": "0", "paused_until": "-",
	} {
		if got := value(t, out, key); got != want {
			t.Errorf("create: %s = %q, want %q", key, got, want)
		}
	}
	// A plain series shows the API's nulls as "-"; a once alarm has no series lines.
	plain := s.mustCLI(t, "alarm", "create", "--cron", "@hourly")
	for key, want := range map[string]string{"misfire": "fire_once", "catch_up_limit": "-", "catch_up_window": "-",
		"end_at": "-", "remaining_fires": "-"} {
		if got := value(t, plain, key); got != want {
			t.Errorf("a plain series: %s = %q, want %q", key, got, want)
		}
	}
	if once := s.mustCLI(t, "alarm", "create", "--in", "1h"); strings.Contains(once, "misfire:") {
		t.Errorf("a once alarm shows series options:\n%s", once)
	}
	// The server names an option refused on a once alarm.
	if _, _, err := s.cli(t, "alarm", "create", "--in", "1h", "--max-fires", "2"); err == nil ||
		!strings.Contains(err.Error(), "invalid_argument (HTTP 400): max_fires: ") {
		t.Errorf("--max-fires on a once alarm: %v", err)
	}
}

func TestCLIAlarmPauseUntilSkipUpcoming(t *testing.T) {
	t.Parallel()
	s := newCLIServer(t)
	created := s.mustCLI(t, "alarm", "create", "--cron", "0 * * * *")
	id, first := value(t, created, "id"), value(t, created, "scheduled_for")

	upcoming := s.mustCLI(t, "alarm", "upcoming", id, "--count", "3")
	rows := strings.Split(strings.TrimSpace(upcoming), "\n")
	if len(rows) != 4 || !strings.HasPrefix(rows[0], "SCHEDULED FOR") || !strings.HasPrefix(rows[1], first+" ") ||
		!strings.Contains(rows[1], id+"/") {
		t.Fatalf("upcoming table:\n%s", upcoming)
	}
	second := strings.Fields(rows[2])[0]

	skipped := s.mustCLI(t, "alarm", "skip", id)
	if got := value(t, skipped, "scheduled_for"); got != second {
		t.Errorf("skip: scheduled_for %s, want the next one %s", got, second)
	}
	if events := s.mustCLI(t, "alarm", "events", id); !strings.Contains(events, " skipped ") {
		t.Errorf("no skipped event:\n%s", events)
	}

	until := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	paused := s.mustCLI(t, "alarm", "pause", id, "--until", until, "--note", "maintenance window")
	if value(t, paused, "status") != "paused" || value(t, paused, "paused_reason") != "maintenance window" ||
		value(t, paused, "paused_until") != until {
		t.Errorf("pause --until --note:\n%s", paused)
	}
	var answer struct {
		Occurrences []struct {
			ScheduledFor  time.Time `json:"scheduled_for"`
			OccurrenceKey string    `json:"occurrence_key"`
		} `json:"occurrences"`
	}
	js := s.mustCLI(t, "alarm", "upcoming", id, "--json")
	if err := json.Unmarshal([]byte(js), &answer); err != nil || len(answer.Occurrences) != 10 {
		t.Fatalf("upcoming --json printed %q: %v", js, err)
	}
	if u, _ := time.Parse(time.RFC3339, until); answer.Occurrences[0].ScheduledFor.Before(u) {
		t.Errorf("paused until %s, yet the first upcoming is %s", until, answer.Occurrences[0].ScheduledFor)
	}
	// A plain pause still works, and leaves the note.
	if again := s.mustCLI(t, "alarm", "pause", id); value(t, again, "paused_reason") != "maintenance window" {
		t.Errorf("plain pause of a paused alarm:\n%s", again)
	}
}

func TestCLIAlarmPreview(t *testing.T) {
	t.Parallel()
	s := newCLIServer(t)
	// 9:00 in Paris across the spring change of 2030 (Sunday 31 March).
	out := s.mustCLI(t, "alarm", "preview", "--cron", "0 9 * * *", "--timezone", "Europe/Paris",
		"--from", "2030-03-30T00:00:00Z", "--count", "3")
	rows := strings.Split(strings.TrimSpace(out), "\n")
	if len(rows) != 4 || !strings.HasPrefix(rows[0], "SCHEDULED FOR") {
		t.Fatalf("preview table:\n%s", out)
	}
	for i, want := range []string{"2030-03-30T08:00:00Z", "2030-03-31T07:00:00Z", "2030-04-01T07:00:00Z"} {
		if !strings.HasPrefix(rows[i+1], want) {
			t.Errorf("row %d %q, want %s first", i+1, rows[i+1], want)
		}
	}
	if strings.Contains(rows[0], "IN Europe/Paris") && (!strings.Contains(rows[1], "09:00:00 CET") || !strings.Contains(rows[2], "09:00:00 CEST")) {
		t.Errorf("the local column does not show 9:00 on both sides of the change:\n%s", out)
	}
	var answer struct {
		Occurrences []map[string]string `json:"occurrences"`
	}
	js := s.mustCLI(t, "alarm", "preview", "--json", "--cron", "@daily", "--count", "2")
	if err := json.Unmarshal([]byte(js), &answer); err != nil || len(answer.Occurrences) != 2 || answer.Occurrences[0]["scheduled_for"] == "" {
		t.Errorf("preview --json printed %q: %v", js, err)
	}
	_, _, err := s.cli(t, "alarm", "preview", "--cron", "0 9 * * *", "--tz", "Mars/Olympus_Mons")
	if err == nil || !strings.Contains(err.Error(), "invalid_argument (HTTP 400): timezone: ") {
		t.Errorf("a bad zone: %v", err)
	}
}

func TestCLIAlarmUpdate(t *testing.T) {
	t.Parallel()
	s := newCLIServer(t)
	end := time.Now().Add(90 * 24 * time.Hour).UTC().Format(time.RFC3339)
	id := value(t, s.mustCLI(t, "alarm", "create", "--cron", "0 9 * * *", "--label", "standup", "--end-at", end,
		"--max-fires", "5", "--payload", `{"room":"A"}`), "id")

	out := s.mustCLI(t, "alarm", "update", id, "--label", "stand-up", "--cron", "30 9 * * 1-5")
	for key, want := range map[string]string{"label": "stand-up", "cron_expr": "30 9 * * 1-5", "end_at": end,
		"max_fires": "5", "payload": `{"room":"A"}`} {
		if got := value(t, out, key); got != want {
			t.Errorf("update: %s = %q, want %q", key, got, want)
		}
	}
	// A flag given as "" or 0 sends that value; "none" clears a bound; what is not given stays.
	out = s.mustCLI(t, "alarm", "update", id, "--label", "", "--end-at", "none", "--max-fires", "0", "--payload", `[ 1 ]`)
	for key, want := range map[string]string{"label": "", "cron_expr": "30 9 * * 1-5", "end_at": "-", "max_fires": "0",
		"remaining_fires": "-", "payload": "[ 1 ]"} {
		if got := value(t, out, key); got != want {
			t.Errorf("second update: %s = %q, want %q", key, got, want)
		}
	}
	js := s.mustCLI(t, "alarm", "update", id, "--json", "--jitter-seconds", "15")
	if !strings.HasPrefix(js, `{"alarm":{"id":"`+id+`"`) || !strings.Contains(js, `"jitter_seconds":15`) {
		t.Errorf("update --json printed %q", js)
	}
	events := s.mustCLI(t, "alarm", "events", id)
	if n := strings.Count(events, " updated "); n != 3 {
		t.Errorf("%d updated events, want 3:\n%s", n, events)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--jitter-seconds", "99999"}, "invalid_argument (HTTP 400): jitter_seconds: "},
		{[]string{"--catch-up-limit", "0"}, "invalid_argument (HTTP 400): catch_up_limit: "},
		{[]string{"--tz", "Mars/Olympus_Mons"}, "invalid_argument (HTTP 400): timezone: "},
	} {
		if _, _, err := s.cli(t, append([]string{"alarm", "update", id}, tc.args...)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("update %v: %v; want %q", tc.args, err, tc.want)
		}
	}
}

func TestCLIAlarmSeriesRefusesBadFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"create", "--cron", "@hourly", "--start-at", "tomorrow"}, "--start-at \"tomorrow\" is not an RFC 3339 time"},
		{[]string{"create", "--cron", "@hourly", "--end-at", "none"}, "--end-at \"none\" is not an RFC 3339 time"},
		{[]string{"create", "--cron", "@hourly", "--catch-up-limit", "0"}, "--catch-up-limit must be at least 1"},
		{[]string{"update", "a1"}, "say what to change"},
		{[]string{"update", "a1", "--end-at", "soon"}, "or none to clear it"},
		{[]string{"update", "a1", "--payload", "{nope"}, "not valid JSON"},
		{[]string{"update"}, "give exactly one alarm id"},
		{[]string{"pause", "a1", "--until", "later"}, "--until \"later\" is not an RFC 3339 time"},
		{[]string{"upcoming"}, "give exactly one alarm id"},
		{[]string{"skip", "a1", "a2"}, "give exactly one alarm id"},
		{[]string{"preview"}, "--cron EXPR"},
		{[]string{"preview", "--cron", "@daily", "--from", "now"}, "--from \"now\" is not an RFC 3339 time"},
		{[]string{"preview", "--cron", "@daily", "extra"}, "unexpected argument"},
	} {
		// No server listens there: each refusal must come before any request.
		args := append([]string{"alarm"}, tc.args...)
		args = append(args, "--server", "http://127.0.0.1:1", "--token", "chr_x")
		if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want %q", tc.args, err, tc.want)
		}
	}
}
