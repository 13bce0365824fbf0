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
// wakes at once and acknowledges none, every fast wake is delivered once, and the hung
// period ends by itself: once every hung alarm had an attempt, or at --duration. With
// --also-without the second run loads no hung alarms, its hung period as long as the
// first's, and the comparison says the p99 added.
func TestBenchHungEndpoint(t *testing.T) {
	short := []string{"--waker", "webhook", "--quiet-rate", "100", "--lead", "300ms", "--tick", "100ms",
		"--quiet-before", "300ms", "--quiet-after", "300ms", "--batch", "50", "--concurrency", "100"}
	check := func(name string, res map[string]any, alarms, maxInFlight float64, endedBy string) map[string]any {
		t.Helper()
		h, _ := res["hung_endpoint"].(map[string]any)
		if h == nil {
			t.Fatalf("%s: no hung-endpoint figures: %v", name, res)
		}
		if res["mode"] != "hung endpoint" || res["double_fires"] != 0.0 || h["alarms"] != alarms || h["ended_by"] != endedBy ||
			h["hung_delivered"] != 0.0 || h["fast_created"].(float64) < 50 || h["fast_delivered"] != h["fast_created"] ||
			res["delivered"] != h["fast_created"] || h["peak_held"].(float64) > maxInFlight {
			t.Errorf("%s: mode %v, doubles %v, delivered %v; want %v hung alarms (ended by %s), none acknowledged, at most %v held at once, every fast alarm once: %v",
				name, res["mode"], res["double_fires"], res["delivered"], alarms, endedBy, maxInFlight, h)
		}
		for _, k := range []string{"fast_before", "fast_during", "fast_after"} {
			if k != "fast_during" && h[k].(map[string]any)["count"].(float64) < 10 {
				t.Errorf("%s: the fast trickle did not run before and after the hung period: %v", name, h)
			}
		}
		return h
	}
	// Few enough for one attempt each at once: the period ends when the last arrives.
	h := check("every hung alarm attempted", runBench(t, append([]string{"--hung-endpoint", "8", "--endpoint-max-in-flight", "10",
		"--delivery-timeout", "2s", "--duration", "10s"}, short...)...), 8, 10, "every hung alarm attempted")
	if h["attempted"] != 8.0 {
		t.Errorf("%v of 8 hung alarms attempted", h["attempted"])
	}

	var out, errOut bytes.Buffer
	args := append([]string{"--store", "sqlite", "--hung-endpoint", "40", "--endpoint-max-in-flight", "4",
		"--delivery-timeout", "1s", "--duration", "1500ms", "--also-without"}, short...)
	if err := run(t.Context(), args, &out, &errOut); err != nil {
		t.Fatalf("--also-without: %v\nstderr:\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var pair struct {
		With, Without map[string]any
		AddedP99Ms    *float64 `json:"added_p99_ms"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &pair); err != nil || pair.With == nil || pair.Without == nil || pair.AddedP99Ms == nil {
		t.Fatalf("last line of --also-without is not both runs and the p99 added: %q (%v)", lines[len(lines)-1], err)
	}
	with := check("capped, with", pair.With, 40, 4, "--duration")
	without := check("capped, without", pair.Without, 0, 4, "--duration")
	held, _ := with["endpoints"].(map[string]any)["held_back"].(map[string]any)
	if with["attempts"].(float64) < 4 || held[ports.DeferredEndpointFull] == nil || with["period_ms"] != 1500.0 || without["period_ms"] != 1500.0 ||
		without["attempts"] != 0.0 {
		t.Errorf("with: %v attempts, held back %v, period %v ms; without: %v attempts, period %v ms; want the cap to hold wakes back, and both periods 1500 ms",
			with["attempts"], held, with["period_ms"], without["attempts"], without["period_ms"])
	}
	if !strings.Contains(out.String(), "p99 added by the hung endpoint (with − without)") {
		t.Errorf("--also-without printed no comparison:\n%s", out.String())
	}
}

// The hung-endpoint mode refuses what it cannot measure, with every reason.
func TestBenchHungEndpointRefusesOtherModes(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(t.Context(), []string{"--store", "sqlite", "--hung-endpoint", "10", "--noisy-owner", "10", "--endpoint-max-in-flight", "-1",
		"--delivery-timeout", "10ms"}, &out, &errOut)
	if err == nil {
		t.Fatal("bench accepted --hung-endpoint with --noisy-owner, the no-op waker, --endpoint-max-in-flight -1 and --delivery-timeout 10ms")
	}
	for _, want := range []string{"not with --rate, --find-knee or --noisy-owner", "needs --waker webhook", "--endpoint-max-in-flight must be",
		"--delivery-timeout must be"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if err := run(t.Context(), []string{"--store", "sqlite", "--also-without"}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "it needs --hung-endpoint") {
		t.Errorf("--also-without alone: %v; want a refusal naming --hung-endpoint", err)
	}
}
