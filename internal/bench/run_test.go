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
