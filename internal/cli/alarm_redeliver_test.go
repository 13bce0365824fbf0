package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// alarm redeliver sends one occurrence again, or the failed alarms with --failed (the
// test server's waker refuses every wake, so each is reported refused).
func TestAlarmRedeliver(t *testing.T) {
	s := newCLIServer(t)
	var a struct {
		Alarm struct {
			ID string `json:"id"`
		} `json:"alarm"`
	}
	if err := json.Unmarshal([]byte(s.mustCLI(t, "alarm", "create", "--in", "0s", "--max-failures", "1", "-o", "json")), &a); err != nil {
		t.Fatal(err)
	}
	s.server.Fail(t, a.Alarm.ID)
	out := s.mustCLI(t, "alarm", "redeliver", a.Alarm.ID)
	if !strings.Contains(out, a.Alarm.ID+"/") || !strings.Contains(out, "attempt") || !strings.Contains(out, "false") {
		t.Errorf("redeliver:\n%s", out)
	}
	var res struct{ Matched, Failed int }
	if err := json.Unmarshal([]byte(s.mustCLI(t, "alarm", "redeliver", "--failed", "--limit", "5", "-o", "json")), &res); err != nil || res.Matched != 1 || res.Failed != 1 {
		t.Errorf("redeliver --failed: %+v, %v", res, err)
	}
	for _, args := range [][]string{
		{"alarm", "redeliver"}, // no id, no --failed
		{"alarm", "redeliver", "--failed", a.Alarm.ID},
		{"alarm", "redeliver", "--failed", "--since", "yesterday"},
		{"alarm", "redeliver", a.Alarm.ID, "--occurrence-key", "x"},
	} {
		if _, _, err := s.cli(t, args...); err == nil {
			t.Errorf("chronos %s: no error", strings.Join(args, " "))
		}
	}
}
