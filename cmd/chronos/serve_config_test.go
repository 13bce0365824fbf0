package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/internal/flagenv"
)

// serve must refuse, before touching any store, every configuration that would break a
// guarantee, and say why in words an operator can act on.
func TestServeRefusesUnsafeConfiguration(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"no wake url outside dev", []string{"--wake-secret", "s"}, nil, []string{"--wake-url (CHRONOS_WAKE_URL) is required"}},
		{"no secret outside dev", []string{"--wake-url", "http://127.0.0.1:9/"}, nil, []string{"--wake-secret (CHRONOS_WAKE_SECRET) is required"}},
		{"relative wake url", []string{"--wake-url", "/hook", "--wake-secret", "s"}, nil, []string{"must be an absolute http:// or https:// URL"}},
		{"lease not above delivery timeout", []string{"--dev", "--lease", "10s", "--delivery-timeout", "10s"}, nil, []string{"lease (10s) must exceed the delivery timeout (10s)"}},
		{"lease from the environment", []string{"--dev"}, map[string]string{"CHRONOS_LEASE": "5s"}, []string{"lease (5s) must exceed"}},
		{"every reason at once", nil, nil, []string{"--wake-url", "--wake-secret"}},
		{"max failures out of range", []string{"--dev", "--max-failures", "0"}, nil, []string{"--max-failures must be between 1 and 100"}},
		{"bad log format", []string{"--dev", "--log-format", "xml"}, nil, []string{"--log-format must be console or json"}},
		{"unknown receiver errors", []string{"--dev", "--receiver-errors", "some"}, nil, []string{`--receiver-errors must be status or full, got "some"`}},
		{"negative quota", []string{"--dev", "--max-active-alarms-per-owner", "-1"}, nil, []string{"--max-active-alarms-per-owner must be 0 (no quota) or more"}},
		{"negative calendars", []string{"--dev", "--max-calendars-per-owner", "-1"}, nil, []string{"--max-calendars-per-owner must be 0 (no limit) or more, got -1"}},
		{"negative calendar entries", nil, map[string]string{"CHRONOS_DEV": "true", "CHRONOS_MAX_CALENDAR_ENTRIES": "-1"}, []string{"--max-calendar-entries must be 0 (no limit) or more, got -1"}},
		{"bulk per call of 0", []string{"--dev", "--max-bulk-per-call", "0"}, nil, []string{"--max-bulk-per-call must be 1 to 10000, got 0"}},
		{"negative bulk calls", nil, map[string]string{"CHRONOS_DEV": "true", "CHRONOS_MAX_BULK_CALLS": "-1"}, []string{"--max-bulk-calls must be 0 (no limit) or more, got -1"}},
		{"no quota refresh", []string{"--dev", "--quota-refresh", "0s"}, nil, []string{"--quota-refresh must be above 0"}},
		{"negative rate limit", nil, map[string]string{"CHRONOS_DEV": "true", "CHRONOS_RATE_LIMIT": "-5"}, []string{"--rate-limit must be 0 (no limit) or more, got -5"}},
		{"attempt body bytes below 0", []string{"--dev", "--attempt-body-bytes", "-1"}, nil, []string{"--attempt-body-bytes must be 0 (keep no body) to 8192, got -1"}},
		{"attempt body bytes above the maximum", []string{"--dev", "--attempt-body-bytes", "8193"}, nil, []string{"--attempt-body-bytes must be 0 (keep no body) to 8192, got 8193"}},
		{"wake url limit below -1", []string{"--dev", "--wake-url-max-in-flight", "-2"}, nil, []string{"--wake-url-max-in-flight must be -1 (no limit), 0 (128) or more, got -2"}},
		{"tls cert without key", []string{"--dev", "--tls-cert", "c.pem"}, nil, []string{"--tls-cert and --tls-key go together"}},
		{"listen URL without PostgreSQL", []string{"--dev", "--store-listen-url", "postgres://db/chronos"}, nil, []string{"--store-listen-url (CHRONOS_STORE_LISTEN_URL) is for a PostgreSQL --store"}},
		{"replica without PostgreSQL", []string{"--dev", "--store-replica", "postgres://standby/chronos"}, nil, []string{"--store-replica (CHRONOS_STORE_REPLICA) is for a PostgreSQL --store"}},
		{"replica not PostgreSQL", []string{"--dev", "--store", "postgres://db/chronos", "--store-replica", "mysql://standby/chronos"}, nil, []string{"--store-replica (CHRONOS_STORE_REPLICA) is for a PostgreSQL --store"}},
		{"relative public url", []string{"--dev", "--public-url", "chronos.example"}, nil, []string{"--public-url \"chronos.example\" must be an absolute http:// or https:// URL"}},
		{"otel endpoint without scheme", []string{"--dev", "--otel-endpoint", "collector:4318"}, nil, []string{"--otel-endpoint \"collector:4318\" must be an absolute http:// or https:// URL"}},
		{"missing backup dir", []string{"--dev", "--backup-dir", "/nonexistent/backups"}, nil, []string{`--backup-dir "/nonexistent/backups"`, "no such file or directory"}},
		{"backup dir is a file", []string{"--dev", "--backup-dir", "backup.go"}, nil, []string{`--backup-dir "backup.go" is not a directory`}},
		{"backoff cap below base", []string{"--dev", "--backoff-base", "1m", "--backoff-cap", "30s"}, nil, []string{"backoff base (1m0s) must be positive and not above the cap (30s)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			// The store URL points nowhere usable: the refusal must come first.
			args := append([]string{"serve", "--store", "sqlite:///nonexistent/dir/x.db"}, c.args...)
			err := run(context.Background(), args, &stdout, &stderr)
			if err == nil {
				t.Fatal("serve started; want a refusal")
			}
			if !strings.HasPrefix(err.Error(), "refusing to start") {
				t.Errorf("error %q does not start with 'refusing to start'", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestBadEnvironmentValueNamesTheVariable(t *testing.T) {
	t.Setenv("CHRONOS_TICK", "soon")
	err := run(context.Background(), []string{"serve", "--dev"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "CHRONOS_TICK") {
		t.Fatalf("error %v does not name CHRONOS_TICK", err)
	}
}

func TestFlagWinsOverEnvironment(t *testing.T) {
	t.Setenv("CHRONOS_LEASE", "1s")
	var cfg serveConfig
	fs := flagenv.New("serve", &bytes.Buffer{})
	cfg.register(fs)
	if err := flagenv.Parse(fs, []string{"--lease", "90s"}); err != nil {
		t.Fatal(err)
	}
	if cfg.Lease.String() != "1m30s" {
		t.Errorf("lease = %s, want the flag's 1m30s over the environment's 1s", cfg.Lease)
	}
}

// The limits default to a quota of 1,000,000 and 1,000 requests a second per token;
// the environment sets them as it does every flag, 0 turns each off, and the flag wins.
func TestLimitFlags(t *testing.T) {
	parse := func(args []string) serveConfig {
		t.Helper()
		var cfg serveConfig
		fs := flagenv.New("serve", &bytes.Buffer{})
		cfg.register(fs)
		if err := flagenv.Parse(fs, args); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	if c := parse(nil); c.MaxActive != 1_000_000 || c.RateLimit != 1000 || c.QuotaRefresh != 2*time.Second {
		t.Errorf("defaults: quota %d, rate %d, refresh %s; want 1000000, 1000, 2s", c.MaxActive, c.RateLimit, c.QuotaRefresh)
	}
	t.Setenv("CHRONOS_MAX_ACTIVE_ALARMS_PER_OWNER", "0")
	t.Setenv("CHRONOS_RATE_LIMIT", "0")
	t.Setenv("CHRONOS_QUOTA_REFRESH", "500ms")
	if c := parse(nil); c.MaxActive != 0 || c.RateLimit != 0 || c.QuotaRefresh != 500*time.Millisecond {
		t.Errorf("from the environment: quota %d, rate %d, refresh %s; want 0, 0, 500ms", c.MaxActive, c.RateLimit, c.QuotaRefresh)
	}
	if c := parse([]string{"--rate-limit", "50", "--max-active-alarms-per-owner", "10"}); c.MaxActive != 10 || c.RateLimit != 50 {
		t.Errorf("flags over the environment: quota %d, rate %d; want 10, 50", c.MaxActive, c.RateLimit)
	}
}

// The calendars' limits default to 100 calendars per owner and 1,000 entries per
// calendar, the bulk calls' to 1,000 alarms a call and 4 calls at once; the environment
// sets them, and 0 turns each off in the node's Config.
func TestCalendarAndBulkLimitFlags(t *testing.T) {
	parse := func(args []string) serveConfig {
		t.Helper()
		var cfg serveConfig
		fs := flagenv.New("serve", &bytes.Buffer{})
		cfg.register(fs)
		if err := flagenv.Parse(fs, args); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	if c := parse(nil); c.MaxCalendars != 100 || c.MaxCalendarEntries != 1000 || c.MaxBulkPerCall != 1000 || c.MaxBulkCalls != 4 {
		t.Errorf("defaults: %d calendars, %d entries, %d per bulk call, %d bulk calls; want 100, 1000, 1000, 4",
			c.MaxCalendars, c.MaxCalendarEntries, c.MaxBulkPerCall, c.MaxBulkCalls)
	}
	t.Setenv("CHRONOS_MAX_CALENDARS_PER_OWNER", "7")
	t.Setenv("CHRONOS_MAX_CALENDAR_ENTRIES", "0")
	t.Setenv("CHRONOS_MAX_BULK_PER_CALL", "50")
	t.Setenv("CHRONOS_MAX_BULK_CALLS", "0")
	c := parse(nil)
	if n := c.node(); c.MaxCalendars != 7 || n.MaxCalendarsPerOwner != 7 || n.MaxCalendarEntries != chronos.NoLimit {
		t.Errorf("from the environment: %d calendars (Config %d), Config entries %d; want 7, 7, NoLimit", c.MaxCalendars, n.MaxCalendarsPerOwner, n.MaxCalendarEntries)
	}
	if n := c.node(); n.MaxBulkPerCall != 50 || n.MaxBulkCalls != chronos.NoLimit {
		t.Errorf("from the environment: Config %d per bulk call, %d bulk calls; want 50, NoLimit", n.MaxBulkPerCall, n.MaxBulkCalls)
	}
}

func TestStoreURLSchemes(t *testing.T) {
	for _, u := range []string{"sqlite://x.db", "postgres://h/db", "postgresql://h/db", "mysql://u@h/db"} {
		if _, err := dialectOf(u); err != nil {
			t.Errorf("dialectOf(%q): %v", u, err)
		}
	}
	for _, u := range []string{"chronos.db", "redis://h", ""} {
		if _, err := dialectOf(u); err == nil {
			t.Errorf("dialectOf(%q) accepted an unsupported URL", u)
		}
	}
}

func TestRedactHidesPasswords(t *testing.T) {
	cases := map[string]string{
		"postgres://chronos:s3cret@db:5432/x": "postgres://chronos:xxxxx@db:5432/x",
		"mysql://root@127.0.0.1:3306/test":    "mysql://root@127.0.0.1:3306/test",
		"sqlite://chronos.db":                 "sqlite://chronos.db",
	}
	for in, want := range cases {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokenCreatePrintsTheTokenAloneOnTheLastLine(t *testing.T) {
	store := "sqlite://" + t.TempDir() + "/t.db"
	var out bytes.Buffer
	if err := run(context.Background(), []string{"migrate", "--store", store}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run(context.Background(), []string{"token", "create", "--owner", "alice", "--store", store}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "chr_") || strings.ContainsAny(last, " \t") {
		t.Errorf("last line %q is not the token alone", last)
	}
	out.Reset()
	if err := run(context.Background(), []string{"token", "list", "--store", store}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "alice") || strings.Contains(out.String(), last) {
		t.Errorf("token list shows no alice row, or shows the secret:\n%s", out.String())
	}
}
