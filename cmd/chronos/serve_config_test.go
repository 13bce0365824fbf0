package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
		{"no wake url outside dev", []string{"--wake-secret", strongSecret}, nil, []string{"--wake-url (CHRONOS_WAKE_URL) is required"}},
		{"no secret outside dev", []string{"--wake-url", "http://127.0.0.1:9/"}, nil, []string{"--wake-secret (CHRONOS_WAKE_SECRET) is required"}},
		{"relative wake url", []string{"--wake-url", "/hook", "--wake-secret", strongSecret}, nil, []string{"must be an absolute http:// or https:// URL"}},
		{"one-byte wake secret", []string{"--wake-url", "http://127.0.0.1:9/", "--wake-secret", "s"}, nil, []string{"--wake-secret (CHRONOS_WAKE_SECRET) is too short: a wake secret needs at least 24 bytes of key"}},
		{"23-byte wake secret", []string{"--wake-url", "http://127.0.0.1:9/", "--wake-secret", strings.Repeat("k", 23)}, nil, []string{"--wake-secret (CHRONOS_WAKE_SECRET) is too short"}},
		{"short whsec_ key", []string{"--wake-url", "http://127.0.0.1:9/", "--wake-secret", "whsec_c2hvcnQta2V5LW9mLTIzLWJ5dGVzLi4="}, nil, []string{"is too short", "whsec_ secret, 24 once decoded"}},
		{"a short one while rotating", []string{"--wake-url", "http://127.0.0.1:9/", "--wake-secret", strongSecret, "--wake-secret", "old"}, nil, []string{"--wake-secret (CHRONOS_WAKE_SECRET) (secret 2 of 2) is too short"}},
		{"short wake secret from the environment", []string{"--wake-url", "http://127.0.0.1:9/"}, map[string]string{"CHRONOS_WAKE_SECRET": "hunter2"}, []string{"--wake-secret (CHRONOS_WAKE_SECRET) is too short"}},
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
		{"endpoint allow range not CIDR", []string{"--dev", "--endpoint-allow-cidr", "10.0.0.0/8", "--endpoint-allow-cidr", "10.1.2.3"}, nil, []string{`--endpoint-allow-cidr "10.1.2.3" must be an address range in CIDR form`}},
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

// strongSecret is a wake secret serve accepts: 24 bytes of key or more.
const strongSecret = "a-wake-secret-of-32-bytes-at-least"

// A wake secret shorter than an endpoint's secret may be (24 bytes of key) is refused
// outside --dev, from every source, naming where it came from and never quoting it;
// --dev, which signs nothing it sends anywhere, takes any.
func TestShortWakeSecretsAreRefused(t *testing.T) {
	validated := func(args ...string) error {
		t.Helper()
		var cfg serveConfig
		fs := flagenv.New("serve", &bytes.Buffer{})
		cfg.register(fs)
		if err := flagenv.Parse(fs, args); err != nil {
			t.Fatal(err)
		}
		return cfg.validate()
	}
	const weak = "hunter2-weak"
	if err := validated("--wake-url", "http://127.0.0.1:9/", "--wake-secret", weak); err == nil || strings.Contains(err.Error(), weak) {
		t.Errorf("a 12-byte --wake-secret: %v; want refused without quoting it", err)
	}
	file := filepath.Join(t.TempDir(), "secrets")
	if err := os.WriteFile(file, []byte(strongSecret+"\n"+weak+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := validated("--wake-url", "http://127.0.0.1:9/", "--wake-secret-file", file)
	if err == nil || !strings.Contains(err.Error(), "--wake-secret-file "+file+" (secret 2 of 2) is too short") || strings.Contains(err.Error(), weak) {
		t.Errorf("a file with a short secret: %v; want refused, naming the file and which secret", err)
	}
	if err := validated("--dev", "--wake-secret", "s"); err != nil {
		t.Errorf("--dev with a one-byte secret: %v; want accepted", err)
	}
	if err := validated("--wake-url", "http://127.0.0.1:9/", "--wake-secret", strings.Repeat("k", 24)); err != nil {
		t.Errorf("a 24-byte secret: %v; want accepted", err)
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
	parse := func(args []string) serveConfig { return parseServeFlags(t, args) }
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

// --endpoint-allow-cidr repeats, the environment gives ranges comma-separated, and
// --dev adds loopback: the ranges the node's endpoints may reach.
func TestEndpointAllowCIDRFlag(t *testing.T) {
	allow := func(args []string) []string {
		t.Helper()
		cfg := parseServeFlags(t, args)
		var got []string
		for _, p := range cfg.node().Endpoints.AllowCIDRs {
			got = append(got, p.String())
		}
		return got
	}
	if got := allow(nil); len(got) != 0 {
		t.Errorf("default: %v, want nothing allowed", got)
	}
	if got := strings.Join(allow([]string{"--endpoint-allow-cidr", "10.20.0.0/16", "--endpoint-allow-cidr", "fd00::/8"}), " "); got != "10.20.0.0/16 fd00::/8" {
		t.Errorf("flags: %s", got)
	}
	if got := strings.Join(allow([]string{"--dev"}), " "); got != "127.0.0.0/8 ::1/128" {
		t.Errorf("--dev: %s, want loopback", got)
	}
	t.Setenv("CHRONOS_ENDPOINT_ALLOW_CIDR", "10.20.0.0/16, 192.168.5.0/24")
	if got := strings.Join(allow(nil), " "); got != "10.20.0.0/16 192.168.5.0/24" {
		t.Errorf("environment: %s", got)
	}
}

// The calendars' limits default to 100 calendars per owner and 1,000 entries per
// calendar, the bulk calls' to 1,000 alarms a call and 4 calls at once; the environment
// sets them, and 0 turns each off in the node's Config.
func TestCalendarAndBulkLimitFlags(t *testing.T) {
	parse := func(args []string) serveConfig { return parseServeFlags(t, args) }
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

// parseServeFlags parses args (and the CHRONOS_* environment) as serve does.
func parseServeFlags(t *testing.T, args []string) serveConfig {
	t.Helper()
	var cfg serveConfig
	fs := flagenv.New("serve", &bytes.Buffer{})
	cfg.register(fs)
	if err := flagenv.Parse(fs, args); err != nil {
		t.Fatal(err)
	}
	return cfg
}
