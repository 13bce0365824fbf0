package bench

import (
	"fmt"
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

// --list-rounds N runs every variant N times from one load, the variants in turn in each
// round, and numbers the rounds.
func TestBenchListRounds(t *testing.T) {
	res := runBench(t, "--alarms", "200", "--list-clients", "1", "--list-duration", "20ms", "--list-rounds", "2")
	list, _ := res["list"].([]any)
	var got []string
	for _, v := range list {
		row := v.(map[string]any)
		round, _ := row["round"].(float64)
		got = append(got, fmt.Sprintf("%s/%v", row["variant"], round))
		if row["calls"].(float64) < 1 {
			t.Errorf("variant %v of round %v made no call", row["variant"], round)
		}
	}
	want := "first page/1, deep page/1, status=active/1, status=failed/1, " +
		"first page/2, deep page/2, status=active/2, status=failed/2"
	if strings.Join(got, ", ") != want {
		t.Errorf("list rows: %s\nwant %s", strings.Join(got, ", "), want)
	}

	if _, err := parseConfig(t, "--list-rounds", "0"); err == nil || !strings.Contains(err.Error(), "--list-rounds") {
		t.Errorf("--list-rounds 0: %v, want an error naming --list-rounds", err)
	}
}
