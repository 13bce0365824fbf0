package bench

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// A burn-down gets the throughput default of --concurrency, the fairness modes serve's
// own, and a value given on the command line wins in every mode.
func TestConcurrencyDefaultsByMode(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--alarms", "10"}, throughputConcurrency},
		{[]string{"--noisy-owner", "100"}, serveConcurrency},
		{[]string{"--hung-endpoint", "100", "--waker", "webhook"}, serveConcurrency},
		{[]string{"--noisy-owner", "100", "--concurrency", "4000"}, 4000},
		{[]string{"--alarms", "10", "--concurrency", "64"}, 64},
	} {
		cfg, err := parseConfig(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if cfg.Concurrency != c.want {
			t.Errorf("%v: --concurrency %d, want %d", c.args, cfg.Concurrency, c.want)
		}
	}
}

// parseConfig is the Config `chronos bench args...` runs with, and validate's error.
func parseConfig(t *testing.T, args ...string) (Config, error) {
	t.Helper()
	var cfg Config
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return cfg, cfg.validate()
}

// The punctuality noises: abuse defaults to 100,000 alarms of its own, none needs
// none, and an unknown kind is refused naming them all.
func TestPunctualityNoiseKinds(t *testing.T) {
	for _, c := range []struct {
		noise string
		want  int
	}{{"abuse", 100_000}, {"none", 0}, {"burst", 30_000}} {
		cfg, err := parseConfig(t, "--punctuality", "--duration", "5s", "--punctuality-noise", c.noise)
		if err != nil || cfg.NoiseAlarms != c.want {
			t.Errorf("--punctuality-noise %s: %v, --noise-alarms %d; want %d", c.noise, err, cfg.NoiseAlarms, c.want)
		}
	}
	if _, err := parseConfig(t, "--punctuality", "--duration", "5s", "--punctuality-noise", "loud"); err == nil || !strings.Contains(err.Error(), "abuse or none") {
		t.Errorf("--punctuality-noise loud: %v, want a refusal naming the kinds", err)
	}
}
