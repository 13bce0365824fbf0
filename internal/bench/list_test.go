package bench

import (
	"strings"
	"testing"
	"time"
)

// --tags tags every alarm as benchTags says, and --list-clients then runs the tag
// variants too (a tiny run: figures are never asserted).
func TestBenchListWithTags(t *testing.T) {
	now := time.Now()
	as, err := Build(1000, Mix{PayloadBytes: 2, Tags: true}, now, now.Add(-time.Second), now)
	if err != nil {
		t.Fatal(err)
	}
	pro := 0
	for _, a := range as {
		if a.Tags["customer"] == "7" && a.Tags["plan"] == "pro" {
			pro++
		}
	}
	if pro != 5 {
		t.Errorf("%d of 1000 alarms carry customer:7 and plan:pro, want 5", pro)
	}

	res := runBench(t, "--alarms", "1000", "--tags", "--list-clients", "2", "--list-duration", "50ms")
	list, _ := res["list"].([]any)
	var names []string
	for _, v := range list {
		row := v.(map[string]any)
		names = append(names, row["variant"].(string))
		if row["calls"].(float64) < 1 {
			t.Errorf("variant %v made no call", row["variant"])
		}
	}
	if got := strings.Join(names, "; "); !strings.Contains(got, "tags customer:7, plan:pro (0.5%)") || len(names) != 4+len(tagVariants) {
		t.Errorf("list variants: %s", got)
	}
}
