package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// --tags tags every alarm as benchTags says, and --list-clients then runs the tag
// variants too (a tiny run: figures are never asserted).
func TestBenchListWithTags(t *testing.T) {
	now := time.Now()
	as, err := Build(2000, Mix{PayloadBytes: 2, Tags: true, CronFraction: 0.1}, now, now.Add(-time.Second), now)
	if err != nil {
		t.Fatal(err)
	}
	// The variants' shares: customer:7 1%, with plan:pro 0.5%, and a tenth of it cron
	// series (the variant with status=active): 0.1%.
	customer, pro, cron := 0, 0, 0
	for _, a := range as {
		if a.Tags["customer"] != "7" {
			continue
		}
		customer++
		if a.Tags["plan"] == "pro" {
			pro++
		}
		if a.Kind == domain.KindCron {
			cron++
		}
	}
	if customer != 20 || pro != 10 || cron != 2 {
		t.Errorf("of 2000 alarms, customer:7 %d, with plan:pro %d, cron %d; want 20, 10, 2", customer, pro, cron)
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
