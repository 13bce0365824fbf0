package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// runChronos runs the binary's command line in process and returns its exit status.
func runChronos(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(t.Context(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// A store serve cannot reach is one line naming the store and the cause, exit 1: no
// injection chain, no source paths, no log lines before it.
func TestServeUnreachableStoreIsOneLine(t *testing.T) {
	for _, store := range []string{"postgres://root@127.0.0.1:1/x", "mysql://root@127.0.0.1:1/x"} {
		code, _, stderr := runChronos(t, "serve", "--dev", "--listen", "127.0.0.1:0", "--store", store)
		want := "chronos: cannot open store " + store + ": connection refused\n"
		if code != 1 || stderr != want {
			t.Errorf("serve --store %s: exit %d, stderr %q; want exit 1 and %q", store, code, stderr, want)
		}
	}
}

// A port in use fails before anything starts: the store is not even opened, so a
// SQLite file is not created.
func TestServePortInUseFailsFirst(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	db := filepath.Join(t.TempDir(), "chronos.db")
	code, _, stderr := runChronos(t, "serve", "--dev", "--listen", ln.Addr().String(), "--store", "sqlite://"+db)
	want := "chronos: cannot listen on --listen " + ln.Addr().String() + ": address already in use\n"
	if code != 1 || stderr != want {
		t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the store was created although serve could not listen: %v", err)
	}
}

// The commands other than serve and migrate never create a store: run where no store
// is, token create refuses, names the store and how to give one, and leaves no file.
func TestCommandsOtherThanServeAndMigrateCreateNoStore(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("CHRONOS_STORE", "")
	os.Unsetenv("CHRONOS_STORE")
	elsewhere := "sqlite://" + filepath.Join(t.TempDir(), "missing.db")
	for _, args := range [][]string{
		{"token", "create", "--owner", "alice"},
		{"token", "list"},
		{"token", "create", "--owner", "alice", "--store", elsewhere},
	} {
		code, stdout, stderr := runChronos(t, args...)
		if code != 1 || !strings.Contains(stderr, "does not exist") || !strings.Contains(stderr, "--store") ||
			!strings.Contains(stderr, "sqlite://") || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 naming the store and --store", args, code, stdout, stderr)
		}
	}
	if _, err := os.Stat("chronos.db"); !os.IsNotExist(err) {
		t.Errorf("token create left ./chronos.db behind: %v", err)
	}
	// migrate creates it; then token create works on it.
	if code, _, stderr := runChronos(t, "migrate"); code != 0 {
		t.Fatalf("migrate: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := runChronos(t, "token", "create", "--owner", "alice"); code != 0 || !strings.Contains(stdout, "created token") {
		t.Errorf("token create on the migrated store: exit %d, %s%s", code, stdout, stderr)
	}
}

// Exit status 2 is a mistake on the command line, 1 a failure at run time, 0 success;
// -h prints help on stdout.
func TestExitCodesAndHelp(t *testing.T) {
	for _, c := range []struct {
		args       []string
		code       int
		out, err   string // substrings of stdout and stderr
		emptyError bool
	}{
		{[]string{}, 2, "", "no command given", false},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`, false},
		{[]string{"serve", "--no-such-flag"}, 2, "", "flag provided but not defined", false},
		{[]string{"migrate", "extra"}, 2, "", `unexpected argument "extra"`, false},
		{[]string{"serve", "--store", "sqlite:///nonexistent/x.db"}, 2, "", "--wake-url (CHRONOS_WAKE_URL) is required", false},
		{[]string{"alarm", "get"}, 2, "", "give exactly one alarm id", false},
		{[]string{"alarm", "list", "--bogus"}, 2, "", `Run "chronos alarm list -h"`, false},
		{[]string{"-h"}, 0, "Exit status", "", true},
		{[]string{"serve", "-h"}, 0, "--wake-url", "", true},
		{[]string{"alarm", "-h"}, 0, "backfill", "", true},
		{[]string{"alarm", "create", "-h"}, 0, "--cron-expr", "", true},
		{[]string{"admin", "cancel", "-h"}, 0, "--dry-run", "", true},
		{[]string{"endpoint", "create", "-h"}, 0, "--rate-per-second", "", true},
		{[]string{"healthcheck", "-h"}, 0, "--url", "", true},
		{[]string{"version"}, 0, "chronos ", "", true},
		{[]string{"healthcheck", "--url", "http://127.0.0.1:1/healthz", "--timeout", "1s"}, 1, "", "connection refused", false},
	} {
		code, stdout, stderr := runChronos(t, c.args...)
		if code != c.code || !strings.Contains(stdout, c.out) || !strings.Contains(stderr, c.err) || (c.emptyError && stderr != "") {
			t.Errorf("chronos %v: exit %d\nstdout: %s\nstderr: %s\nwant exit %d, stdout with %q, stderr with %q", c.args, code, stdout, stderr, c.code, c.out, c.err)
		}
	}
}

// healthcheck exits 0 on a 2xx from the URL and 1 otherwise: a scratch image's
// HEALTHCHECK.
func TestHealthcheck(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }))
	defer srv.Close()
	if code, stdout, stderr := runChronos(t, "healthcheck", "--url", srv.URL+"/healthz"); code != 0 || !strings.Contains(stdout, "200") {
		t.Errorf("healthy: exit %d, %s%s", code, stdout, stderr)
	}
	status = http.StatusServiceUnavailable
	if code, _, stderr := runChronos(t, "healthcheck", "--url", srv.URL+"/healthz"); code != 1 || !strings.Contains(stderr, "503") {
		t.Errorf("unhealthy: exit %d, %s", code, stderr)
	}
}

// version reports the module version, the VCS revision (and whether the checkout was
// modified) and the Go version from the build information; -ldflags -X main.version
// overrides the version.
func TestVersionFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Path: "github.com/chronoshq/chronos", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "8f71f6a7c22d"}, {Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "2026-11-26T04:00:00Z"}}}
	info := buildInfoOf("v1.2.3", bi)
	if got := info.String(); !strings.HasPrefix(got, "chronos v1.2.3 (revision 8f71f6a7c22d, modified) go1.99.1 ") {
		t.Errorf("version line %q", got)
	}
	if info := buildInfoOf("v1.2.3", &debug.BuildInfo{GoVersion: "go1.99.1"}); info.String() != "chronos v1.2.3 go1.99.1 "+info.Platform {
		t.Errorf("without VCS data: %q", info.String())
	}
	old := version
	version = "v9.9.9-packager"
	defer func() { version = old }()
	code, stdout, _ := runChronos(t, "version", "--json")
	var got buildInfo
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || code != 0 || got.Version != "v9.9.9-packager" || !strings.HasPrefix(got.GoVersion, "go") {
		t.Errorf("version --json with -X main.version: exit %d, %q (%v)", code, stdout, err)
	}
}
