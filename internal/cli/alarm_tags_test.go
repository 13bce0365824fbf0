package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/internal/testserver"
)

// --tag on create, list and update, and alarm bulk.
func TestAlarmTagsAndBulk(t *testing.T) {
	s := newCLIServer(t)
	var a struct {
		Alarm struct {
			ID   string            `json:"id"`
			Tags map[string]string `json:"tags"`
		} `json:"alarm"`
	}
	out := s.mustCLI(t, "alarm", "create", "--cron", "@daily", "--tag", "customer:42", "--tag", "url:http://x:1", "-o", "json")
	if err := json.Unmarshal([]byte(out), &a); err != nil || a.Alarm.Tags["customer"] != "42" || a.Alarm.Tags["url"] != "http://x:1" {
		t.Fatalf("create: %v %s", err, out)
	}
	s.mustCLI(t, "alarm", "create", "--in", "1h", "--tag", "customer:7")
	if out := s.mustCLI(t, "alarm", "get", a.Alarm.ID); !strings.Contains(out, "customer:42, url:http://x:1") {
		t.Errorf("get shows no tags:\n%s", out)
	}
	if out := s.mustCLI(t, "alarm", "list", "--tag", "customer:42"); !strings.Contains(out, a.Alarm.ID) || strings.Count(out, "\n") != 2 {
		t.Errorf("list --tag:\n%s", out)
	}
	if out := s.mustCLI(t, "alarm", "bulk", "pause", "--tag", "customer:42", "--dry-run"); !strings.Contains(out, "matched") || !strings.Contains(out, "1") {
		t.Errorf("bulk --dry-run:\n%s", out)
	}
	var res struct{ Matched, Changed int }
	if err := json.Unmarshal([]byte(s.mustCLI(t, "alarm", "bulk", "pause", "--tag", "customer:42", "-o", "json")), &res); err != nil || res.Matched != 1 || res.Changed != 1 {
		t.Errorf("bulk pause: %+v, %v", res, err)
	}
	if out := s.mustCLI(t, "alarm", "update", a.Alarm.ID, "--tag", "plan:pro"); !strings.Contains(out, "plan:pro") || strings.Contains(out, "customer:42") {
		t.Errorf("update --tag:\n%s", out)
	}
	if out := s.mustCLI(t, "alarm", "update", a.Alarm.ID, "--clear-tags"); strings.Contains(out, "plan:pro") {
		t.Errorf("update --clear-tags:\n%s", out)
	}
	for _, args := range [][]string{
		{"alarm", "bulk", "pause"},                  // no filter: the server refuses
		{"alarm", "bulk", "delete", "--tag", "a:1"}, // no such action
		{"alarm", "list", "--tag", "nocolon"},
	} {
		if _, _, err := s.cli(t, args...); err == nil {
			t.Errorf("chronos %s: no error", strings.Join(args, " "))
		}
	}
}

// alarm bulk goes through every alarm the filter selects however few the server takes a
// call: the progress on stderr, the sums at the end (with -o json in the API's shape).
func TestAlarmBulkTakesAsManyCallsAsItNeeds(t *testing.T) {
	s := newCLIServerWith(t, testserver.Options{MaxBulkPerCall: 3})
	for range 10 {
		s.mustCLI(t, "alarm", "create", "--in", "1h", "--tag", "campaign:x")
	}
	out, stderr, err := s.cli(t, "alarm", "bulk", "cancel", "--tag", "campaign:x", "--dry-run")
	if err != nil || value(t, out, "matched") != "10" || value(t, out, "changed") != "10" || strings.Count(stderr, "so far") < 3 {
		t.Errorf("bulk --dry-run: %v\n%s\nstderr:\n%s", err, out, stderr)
	}
	var res struct {
		Matched, Changed int
		More             bool
		NextCursor       *string `json:"next_cursor"`
	}
	out = s.mustCLI(t, "alarm", "bulk", "cancel", "--tag", "campaign:x", "-o", "json")
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Matched != 10 || res.Changed != 10 || res.More || res.NextCursor != nil {
		t.Errorf("bulk cancel -o json: %+v, %v\n%s", res, err, out)
	}
	var list struct {
		Alarms []struct{ ID string } `json:"alarms"`
	}
	out = s.mustCLI(t, "alarm", "list", "--status", "cancelled", "--tag", "campaign:x", "-o", "json")
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Alarms) != 10 {
		t.Errorf("cancelled after the bulk cancel: %d, %v; want 10", len(list.Alarms), err)
	}
}
