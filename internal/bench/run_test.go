package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/ports"
)

// run runs the bench as `chronos bench args...` does, with SQLite the only store it
// can open (these tests use --store sqlite; cmd/chronos wires every store).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg Config
	fs := flag.NewFlagSet("chronos bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	open := func(ctx context.Context, url string, migrate bool) (ports.Store, error) {
		return sqlite.Open(ctx, url, sqlite.Options{Migrate: migrate})
	}
	return Run(ctx, cfg, Wiring{Open: open, Version: "test"}, stdout, stderr)
}

// runBench runs the bench on SQLite and returns its last line, decoded.
func runBench(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(t.Context(), append([]string{"--store", "sqlite"}, args...), &out, &errOut); err != nil {
		t.Fatalf("bench %v: %v\nstderr:\n%s", args, err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("last line of bench output is not one JSON object: %q (%v)", lines[len(lines)-1], err)
	}
	for _, k := range []string{"store", "nodes", "waker", "alarms", "fires_per_sec", "lag_p50_ms", "lag_p99_ms",
		"lag_max_ms", "double_fires", "commits_per_fire"} {
		if _, ok := res[k]; !ok {
			t.Errorf("bench summary lacks %q: %s", k, lines[len(lines)-1])
		}
	}
	return res
}

// A burn-down fires every alarm exactly once, with either waker and with several
// nodes, and says so in its summary. (Figures are never asserted: docs/benchmarks.md.)
func TestBenchBurnDownFiresEveryAlarmOnce(t *testing.T) {
	for _, args := range [][]string{
		{"--waker", "noop", "--at-most-once", "0.2", "--cron", "0.3"},
		{"--waker", "webhook"},
		{"--nodes", "2", "--in-process"},
	} {
		res := runBench(t, append([]string{"--alarms", "500", "--batch", "50", "--concurrency", "100"}, args...)...)
		if res["double_fires"] != 0.0 || res["alarms"] != 500.0 || res["delivered"] != 500.0 || res["failed"] != 0.0 {
			t.Errorf("bench %v: alarms %v, delivered %v, failed %v, double fires %v; want 500 delivered once each",
				args, res["alarms"], res["delivered"], res["failed"], res["double_fires"])
		}
	}
}

// The steady mode creates alarms at the rate asked and fires each of them.
func TestBenchSteadyRate(t *testing.T) {
	res := runBench(t, "--rate", "200", "--duration", "500ms", "--lead", "100ms")
	if res["mode"] != "steady" || res["alarms"] != 100.0 || res["delivered"] != 100.0 || res["double_fires"] != 0.0 {
		t.Errorf("steady run: %v", res)
	}
}

// Bad options are refused with every reason, before any database is made.
func TestBenchRefusesBadOptions(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(t.Context(), []string{"--store", "sqlite", "--nodes", "0", "--waker", "smoke", "--cron", "2"}, &out, &errOut)
	if err == nil {
		t.Fatal("bench accepted --nodes 0 --waker smoke --cron 2")
	}
	for _, want := range []string{"--nodes must be at least 1", "--waker must be noop or webhook", "cron fraction"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// The fairness mode fires the burst and the quiet owners' trickle once each and sorts
// every quiet wake into before, during or after the burst; with --also-unfair it runs
// twice, the second time with --unfair-claims, and compares.
func TestBenchNoisyOwner(t *testing.T) {
	short := []string{"--noisy-owner", "300", "--quiet-owners", "3", "--quiet-rate", "100", "--lead", "300ms",
		"--tick", "100ms", "--quiet-before", "300ms", "--quiet-after", "200ms", "--batch", "50", "--concurrency", "100"}
	check := func(name string, res map[string]any, unfair bool) {
		t.Helper()
		f, _ := res["fairness"].(map[string]any)
		if f == nil {
			t.Fatalf("%s: no fairness figures: %v", name, res)
		}
		var quiet float64
		for _, k := range []string{"quiet_before", "quiet_during", "quiet_after"} {
			quiet += f[k].(map[string]any)["count"].(float64)
		}
		alarms := res["alarms"].(float64)
		if f["burst"] != 300.0 || res["delivered"] != alarms || quiet != alarms-300 || res["double_fires"] != 0.0 ||
			res["mode"] != "fairness" || res["unfair_claims"] != unfair || f["burst_per_sec"].(float64) <= 0 {
			t.Errorf("%s: alarms %v, delivered %v, burst %v, quiet wakes %v, doubles %v, unfair %v; want 300 burst wakes and every alarm once: %v",
				name, alarms, res["delivered"], f["burst"], quiet, res["double_fires"], res["unfair_claims"], f)
		}
		if f["quiet_before"].(map[string]any)["count"].(float64) < 20 || f["quiet_after"].(map[string]any)["count"].(float64) < 10 {
			t.Errorf("%s: the trickle did not run before and after the burst: %v", name, f)
		}
	}
	check("noop", runBench(t, short...), false)

	var out, errOut bytes.Buffer
	if err := run(t.Context(), append([]string{"--store", "sqlite", "--waker", "webhook", "--also-unfair"}, short...), &out, &errOut); err != nil {
		t.Fatalf("--also-unfair: %v\nstderr:\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var pair struct{ Fair, Unfair map[string]any }
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &pair); err != nil || pair.Fair == nil || pair.Unfair == nil {
		t.Fatalf("last line of --also-unfair is not both runs: %q (%v)", lines[len(lines)-1], err)
	}
	check("webhook, fair", pair.Fair, false)
	check("webhook, unfair", pair.Unfair, true)
	if !strings.Contains(out.String(), "burst drain rate, fair ÷ unfair") {
		t.Errorf("--also-unfair printed no comparison:\n%s", out.String())
	}
}

// The fairness mode refuses what it cannot measure, with every reason.
func TestBenchNoisyOwnerRefusesOtherModes(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(t.Context(), []string{"--store", "sqlite", "--noisy-owner", "10", "--rate", "100", "--quiet-rate", "0",
		"--at-most-once", "0.5", "--also-unfair", "--unfair-claims"}, &out, &errOut)
	if err == nil {
		t.Fatal("bench accepted --noisy-owner with --rate, --quiet-rate 0, --at-most-once and --also-unfair --unfair-claims")
	}
	for _, want := range []string{"not with --rate", "--quiet-rate must be at least 1", "not with --at-most-once", "not with --unfair-claims"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// The hung-endpoint mode: the hung endpoint holds at most its max_in_flight of its
// wakes and acknowledges none, while every fast wake is delivered once. Small enough
// that every hung alarm gets an attempt: the hung period ends by itself.
func TestBenchHungEndpoint(t *testing.T) {
	res := runBench(t, "--waker", "webhook", "--hung-endpoint", "8", "--endpoint-max-in-flight", "10",
		"--delivery-timeout", "2s", "--quiet-rate", "100", "--lead", "300ms", "--tick", "100ms",
		"--quiet-before", "300ms", "--quiet-after", "300ms", "--duration", "5s", "--batch", "50", "--concurrency", "100")
	t.Logf("%v", res["hung_endpoint"])
}
