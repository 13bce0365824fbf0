package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/flagenv"
	"github.com/chronoshq/chronos/internal/testserver"
)

// `alarm backfill` asks the server to deliver a series' past occurrences: it prints the
// backfill alarm and how many it delivers, and a repeat of the same window is deduped.
func TestCLIAlarmBackfill(t *testing.T) {
	t.Parallel()
	s := newCLIServer(t)
	series := value(t, s.mustCLI(t, "alarm", "create", "--cron-expr", "*/5 * * * *", "--label", "report"), "id")
	from := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	to := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	out := s.mustCLI(t, "alarm", "backfill", series, "--from", from, "--to", to)
	if value(t, out, "backfill_of") != series || value(t, out, "deduped") != "false" || value(t, out, "occurrences") == "0" {
		t.Errorf("backfill:\n%s", out)
	}
	var again struct {
		Alarm struct {
			BackfillOf string `json:"backfill_of"`
		} `json:"alarm"`
		Deduped     bool `json:"deduped"`
		Occurrences int  `json:"occurrences"`
	}
	if err := json.Unmarshal([]byte(s.mustCLI(t, "alarm", "backfill", series, "--from", from, "--to", to, "-o", "json")), &again); err != nil {
		t.Fatal(err)
	}
	if !again.Deduped || again.Alarm.BackfillOf != series || again.Occurrences < 11 {
		t.Errorf("the same window again = %+v, want the same backfill, deduped, with about 12 occurrences", again)
	}
	for _, args := range [][]string{{series, "--from", from}, {"--from", from, "--to", to}, {series, "--from", "yesterday", "--to", to}} {
		if _, _, err := s.cli(t, append([]string{"alarm", "backfill"}, args...)...); flagenv.ExitCode(err) != flagenv.ExitUsage {
			t.Errorf("alarm backfill %v: %v, want a usage error", args, err)
		}
	}
}

// --dry-run on a bulk admin action prints how many alarms would change and changes
// none; the same command without it then changes them.
func TestCLIAdminBulkDryRun(t *testing.T) {
	t.Parallel()
	srv := testserver.New(t, testserver.Options{})
	hs := httptest.NewServer(srv.Handler)
	t.Cleanup(hs.Close)
	alice := cliServer{url: hs.URL, token: srv.Token(t, "alice", domain.ScopeOwner)}
	ops := cliServer{url: hs.URL, token: srv.Token(t, "ops", domain.ScopeAdmin)}
	a := value(t, alice.mustCLI(t, "alarm", "create", "--in", "1h"), "id")
	alice.mustCLI(t, "alarm", "create", "--in", "2h")

	out := ops.mustCLI(t, "admin", "cancel", "--owner", "alice", "--dry-run")
	if !strings.Contains(out, "dry run: cancel would change 2 of the 2 alarms") || !strings.Contains(out, "nothing was changed") {
		t.Errorf("cancel --dry-run printed:\n%s", out)
	}
	if got := value(t, alice.mustCLI(t, "alarm", "get", a), "status"); got != "active" {
		t.Fatalf("after the dry run the alarm is %s", got)
	}
	var res struct {
		Changed int  `json:"changed"`
		DryRun  bool `json:"dry_run"`
	}
	if err := json.Unmarshal([]byte(ops.mustCLI(t, "admin", "delete", "--owner", "alice", "--dry-run", "-o", "json")), &res); err != nil || res.Changed != 2 || !res.DryRun {
		t.Errorf("delete --dry-run -o json = %+v (%v)", res, err)
	}
	if out := ops.mustCLI(t, "admin", "cancel", "--owner", "alice"); value(t, out, "changed") != "2" {
		t.Errorf("cancel:\n%s", out)
	}
	if _, _, err := ops.cli(t, "admin", "cancel", a, "--dry-run"); flagenv.ExitCode(err) != flagenv.ExitUsage {
		t.Errorf("admin cancel ID --dry-run: %v, want a usage error", err)
	}
}

// Every endpoint subcommand takes the name the same way (NAME, or --name NAME), and
// the rate flag is named as the API's field; --rate still works, with a warning.
func TestCLIEndpointOneNamingScheme(t *testing.T) {
	t.Parallel()
	srv := testserver.New(t, testserver.Options{})
	hs := httptest.NewServer(srv.Handler)
	t.Cleanup(hs.Close)
	ops := cliServer{url: hs.URL, token: srv.Token(t, "ops", domain.ScopeAdmin)}
	out := ops.mustCLI(t, "endpoint", "create", "billing", "--owner", "alice", "--url", "https://h.example.com", "--secret", "a-secret-of-at-least-24-bytes", "--rate-per-second", "2")
	if value(t, out, "name") != "billing" || value(t, out, "rate_per_second") != "2" {
		t.Errorf("create NAME:\n%s", out)
	}
	if got := ops.mustCLI(t, "endpoint", "get", "--name", "billing", "--owner", "alice"); value(t, got, "name") != "billing" {
		t.Errorf("get --name:\n%s", got)
	}
	out, stderr, err := ops.cli(t, "endpoint", "update", "billing", "--owner", "alice", "--rate", "3")
	if err != nil || value(t, out, "rate_per_second") != "3" || !strings.Contains(stderr, "--rate is deprecated") {
		t.Errorf("update --rate: %v\n%s\nstderr: %s", err, out, stderr)
	}
	if _, _, err := ops.cli(t, "endpoint", "delete", "billing", "--name", "other", "--owner", "alice"); flagenv.ExitCode(err) != flagenv.ExitUsage {
		t.Errorf("two different names: %v, want a usage error", err)
	}
	if out := ops.mustCLI(t, "endpoint", "delete", "billing", "--owner", "alice"); !strings.Contains(out, "deleted endpoint billing") {
		t.Errorf("delete NAME: %s", out)
	}
}

// -h prints help on stdout and succeeds; a mistake on the command line is a usage error
// (exit 2) before any request; a refusal by the server is not.
func TestCLIHelpAndUsageErrors(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"alarm", "admin", "endpoint"} {
		out, stderr, err := runCLI(t, cmd, "-h")
		if err != nil || !strings.Contains(out, "Usage: chronos "+cmd) || stderr != "" {
			t.Errorf("%s -h: %v; stdout %q; stderr %q", cmd, err, out, stderr)
		}
	}
	for _, args := range [][]string{{"alarm", "create", "-h"}, {"alarm", "backfill", "-h"}, {"admin", "delete", "-h"}, {"endpoint", "create", "--help"}} {
		_, stderr, err := runCLI(t, args...)
		var help *flagenv.Help
		if !errors.As(err, &help) || !errors.Is(err, flag.ErrHelp) || !strings.Contains(help.Text, "--server") || stderr != "" {
			t.Errorf("%v: %v, stderr %q; want the flags as help, for stdout", args, err, stderr)
		}
	}
	offline := []string{"--server", "http://127.0.0.1:1", "--token", "t"}
	for _, args := range [][]string{
		{"alarm"}, {"alarm", "frob"}, {"alarm", "get"}, {"alarm", "list", "--bogus"}, {"alarm", "create"},
		{"alarm", "list", "-o", "yaml"}, {"admin", "delete"}, {"endpoint", "get", "billing"},
		{"alarm", "pause", "a1", "--until", "tomorrow"}, {"alarm", "update", "a1"}, {"endpoint", "update", "b", "--owner", "o"},
	} {
		_, _, err := runCLI(t, append(args, offline...)...)
		if flagenv.ExitCode(err) != flagenv.ExitUsage {
			t.Errorf("%v: %v (exit %d), want a usage error (exit 2)", args, err, flagenv.ExitCode(err))
		}
	}
	if _, _, err := runCLI(t, append([]string{"alarm", "get", "a1"}, offline...)...); err == nil || flagenv.ExitCode(err) != flagenv.ExitRuntime {
		t.Errorf("an unreachable server: %v, want a runtime error (exit 1)", err)
	}
	s := newCLIServer(t)
	if _, _, err := s.cli(t, "alarm", "get", "nope"); flagenv.ExitCode(err) != flagenv.ExitRuntime {
		t.Errorf("not found: %v, want a runtime error", err)
	}
	s.mustCLI(t, "alarm", "create", "--in", "1h")
	var page struct {
		Alarms []json.RawMessage `json:"alarms"`
	}
	if err := json.Unmarshal([]byte(s.mustCLI(t, "alarm", "list", "-o", "json")), &page); err != nil || len(page.Alarms) != 1 {
		t.Errorf("alarm list -o json: %v, %d alarms", err, len(page.Alarms))
	}
}
