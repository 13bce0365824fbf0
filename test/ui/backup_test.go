package ui

import (
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Settings offers an admin session a backup on request: the copy lands in the node's
// --backup-dir, and the page says which file and how big.
func TestSettingsBackupNow(t *testing.T) {
	e := newEnv(t)
	e.create(`{"kind":"once","delay_seconds":3600}`)
	c := e.signIn(e.admin)
	page := e.get(c, "/ui/settings")
	if !strings.Contains(page.body, `action="/ui/settings/backup"`) || !strings.Contains(page.body, e.backupDir) {
		t.Fatalf("the settings page offers no backup into %s:\n%s", e.backupDir, page.body)
	}
	r := e.post(c, "/ui/settings/backup", url.Values{"csrf": {e.csrf(c, "/ui/settings")}})
	if r.status != http.StatusSeeOther || r.location != "/ui/settings" {
		t.Fatalf("back up now: %d to %q", r.status, r.location)
	}
	ents, err := os.ReadDir(e.backupDir)
	if err != nil || len(ents) != 1 || !regexp.MustCompile(`^chronos-\d{8}T\d{6}Z\.db$`).MatchString(ents[0].Name()) {
		t.Fatalf("--backup-dir after the backup: %v %v; want one chronos-<time>.db", ents, err)
	}
	if after := e.get(c, "/ui/settings"); !strings.Contains(after.body, "Backup written and checked: "+ents[0].Name()) {
		t.Errorf("no flash naming %s after the backup", ents[0].Name())
	}
}
