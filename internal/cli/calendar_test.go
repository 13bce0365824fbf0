package cli

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/testserver"
)

// The calendar commands against the real routes: put, list, get, a series naming the
// calendar, the delete refused while it does, and cleared with update.
func TestCLICalendarLifecycle(t *testing.T) {
	t.Parallel()
	srv := testserver.New(t, testserver.Options{})
	hs := httptest.NewServer(srv.Handler)
	t.Cleanup(hs.Close)
	owner := cliServer{url: hs.URL, token: srv.Token(t, "alice", domain.ScopeOwner)}

	out := owner.mustCLI(t, "calendar", "put", "holidays", "--timezone", "Europe/Berlin", "--date", "2026-12-25",
		"--weekday", "6", "--weekday", "0", "--range", "2026-12-28..2026-12-31")
	if !strings.Contains(out, "holidays") || !strings.Contains(out, "0,6") || !strings.Contains(out, "2026-12-28..2026-12-31") {
		t.Errorf("put:\n%s", out)
	}
	if _, stderr, err := owner.cli(t, "calendar", "put", "bad", "--timezone", "UTC", "--date", "2026-02-30"); err == nil ||
		!strings.Contains(stderr+err.Error(), "exclude_dates[0]") {
		t.Errorf("a bad date: %v %s", err, stderr)
	}
	if list := owner.mustCLI(t, "calendar", "list"); !strings.HasPrefix(list, "NAME") || !strings.Contains(list, "holidays") {
		t.Errorf("list:\n%s", list)
	}
	owner.mustCLI(t, "calendar", "get", "holidays")

	created := owner.mustCLI(t, "alarm", "create", "--cron", "0 9 * * *", "--tz", "Europe/Berlin", "--exclude-calendar", "holidays")
	if got := value(t, created, "exclude_calendars"); got != "holidays" {
		t.Errorf("the series' exclude_calendars = %q", got)
	}
	id := value(t, created, "id")
	if _, stderr, err := owner.cli(t, "calendar", "delete", "holidays"); err == nil || !strings.Contains(stderr+err.Error(), id) {
		t.Errorf("delete of a calendar in use: %v %s", err, stderr)
	}
	updated := owner.mustCLI(t, "alarm", "update", id, "--exclude-calendar", "none")
	if got := value(t, updated, "exclude_calendars"); got != "-" {
		t.Errorf("after --exclude-calendar none: %q", got)
	}
	owner.mustCLI(t, "calendar", "delete", "holidays")
}
