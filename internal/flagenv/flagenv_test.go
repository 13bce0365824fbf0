package flagenv

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestParseReadsTheEnvironmentAndTheCommandLineWins(t *testing.T) {
	t.Setenv("CHRONOS_WAKE_URL", "http://env")
	t.Setenv("CHRONOS_LEASE", "30s")
	fs := New("serve", &bytes.Buffer{})
	wake := fs.String("wake-url", "", "")
	lease := fs.Duration("lease", 0, "")
	if err := Parse(fs, []string{"--lease", "90s"}); err != nil {
		t.Fatal(err)
	}
	if *wake != "http://env" || lease.String() != "1m30s" {
		t.Errorf("wake-url %q, lease %v; want the environment's URL and the flag's lease", *wake, *lease)
	}
}

func TestParseRefusals(t *testing.T) {
	t.Setenv("CHRONOS_LEASE", "soon")
	fs := New("serve", &bytes.Buffer{})
	fs.Duration("lease", 0, "")
	if err := Parse(fs, nil); err == nil || !strings.Contains(err.Error(), "CHRONOS_LEASE") {
		t.Errorf("bad environment value: %v; want an error naming the variable", err)
	}
	fs = New("migrate", &bytes.Buffer{})
	if err := Parse(fs, []string{"extra"}); err == nil || !strings.Contains(err.Error(), `unexpected argument "extra"`) {
		t.Errorf("left-over argument: %v", err)
	}
}

func TestUsageNamesTheEnvironmentOnlyWhenRead(t *testing.T) {
	for _, tc := range []struct {
		withEnv bool
		want    string
	}{
		{true, "  --store (env CHRONOS_STORE, default \"x\")\n      store URL\n"},
		{false, "  --store (default \"x\")\n      store URL\n"},
	} {
		var out bytes.Buffer
		fs := NewNoEnv("bench", &out)
		if tc.withEnv {
			fs = New("bench", &out)
		}
		fs.String("store", "x", "store URL")
		fs.Usage()
		if want := "Usage of chronos bench:\n" + tc.want; out.String() != want || fs.Name() != "chronos bench" {
			t.Errorf("usage %q (name %q); want %q", out.String(), fs.Name(), want)
		}
	}
}

// A repeatable flag collects every use; its environment variable gives values separated
// by commas (blanks dropped), which the command line replaces when it uses the flag.
func TestListFlag(t *testing.T) {
	for _, tc := range []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"--secret", "a", "--secret", "b"}, "a,b"},
		{"from-env", nil, "from-env"},
		{"from-env", []string{"--secret", "a", "--secret", "b"}, "a,b"},
		{"new, old,,", nil, "new,old"},
		{"new,old", []string{"--secret", "a"}, "a"},
	} {
		fs := New("test", io.Discard)
		var l List
		fs.Var(&l, "secret", "")
		if tc.env != "" {
			t.Setenv("CHRONOS_SECRET", tc.env)
		}
		if err := Parse(fs, tc.args); err != nil {
			t.Fatal(err)
		}
		if got := l.String(); got != tc.want {
			t.Errorf("env %q args %v: %q, want %q", tc.env, tc.args, got, tc.want)
		}
	}
}
