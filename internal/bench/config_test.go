package bench

import (
	"flag"
	"io"
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
		var cfg Config
		fs := flag.NewFlagSet("bench", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		cfg.RegisterFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if err := cfg.validate(); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if cfg.Concurrency != c.want {
			t.Errorf("%v: --concurrency %d, want %d", c.args, cfg.Concurrency, c.want)
		}
	}
}
