//go:build ui

package ui

import (
	"fmt"
	"github.com/chronoshq/chronos/ports"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// seeded is the data most browser tests look at: alarms of every kind made through
// the API, one of them failed.
type seeded struct {
	once, cron, secret, failed string
	batch                      []string
}

func (e *env) seed() seeded {
	e.t.Helper()
	s := seeded{
		once:   e.create(`{"kind":"once","delay_seconds":3600,"label":"invoice-reminder"}`),
		cron:   e.create(`{"kind":"cron","cron_expr":"0 9 * * 1-5","timezone":"Europe/Paris","label":"standup"}`),
		secret: e.create(`{"kind":"once","delay_seconds":7200,"label":"vault","payload":{"key":"SECRET-42"},"wake_message":"pin SECRET-43"}`),
		failed: e.create(`{"kind":"once","delay_seconds":0,"max_failures":1,"label":"flaky"}`),
	}
	e.fail(s.failed)
	s.batch = e.createBatch(3, `{"kind":"once","delay_seconds":5400,"label":"batch-x"}`)
	return s
}

// createBatch posts n copies of one alarm through POST /v1/alarms/batch as the owner
// and returns their ids.
func (e *env) createBatch(n int, item string) []string {
	e.t.Helper()
	items := strings.TrimSuffix(strings.Repeat(item+",", n), ",")
	req, _ := http.NewRequestWithContext(e.ctx, "POST", e.srv.URL+"/v1/alarms/batch", strings.NewReader(`{"alarms":[`+items+`]}`))
	req.Header.Set("Authorization", "Bearer "+e.owner)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Results []struct {
			Alarm struct {
				ID string `json:"id"`
			} `json:"alarm"`
		} `json:"results"`
	}
	if err := decodeJSON(res, &out); err != nil || res.StatusCode != http.StatusOK || len(out.Results) != n {
		e.t.Fatalf("batch of %d: HTTP %d, %d results, %v", n, res.StatusCode, len(out.Results), err)
	}
	ids := make([]string, n)
	for i, r := range out.Results {
		if r.Alarm.ID == "" {
			e.t.Fatalf("batch item %d was refused", i)
		}
		ids[i] = r.Alarm.ID
	}
	return ids
}

// contrastJS evaluates to the WCAG contrast ratio of the text of sel on its background.
func contrastJS(sel string) string {
	return `(function(){
		var el = document.querySelector("` + sel + `");
		function lum(c) {
			var v = c.match(/\d+(\.\d+)?/g).slice(0, 3).map(function(x){
				x = x / 255;
				return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
			});
			return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
		}
		var s = getComputedStyle(el), a = lum(s.color), b = lum(s.backgroundColor);
		return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
	})()`
}

// rowIDs are the alarm ids in the alarms table of the page.
func (b *tab) rowIDs() []string {
	b.t.Helper()
	return evalIn[[]string](b, `Array.from(document.querySelectorAll("main tbody td:first-child a code, main tbody td:nth-child(2) a code")).map(function(c){return c.textContent})`)
}

// Sign in through the form; the alarms made through the API are on the alarms page;
// the filter form narrows by status and by label; pages follow with the filter; the
// id search opens the alarm.
func TestBrowserAlarmsFilterAndSearch(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	b := e.tab(t, newBrowser(t))
	b.signIn(e.admin)

	b.open("/ui/alarms")
	ids := strings.Join(b.rowIDs(), " ")
	for _, id := range append([]string{s.once, s.cron, s.secret, s.failed}, s.batch...) {
		if !strings.Contains(ids, id) {
			t.Errorf("alarm %s is not on the alarms page (%s)", id, ids)
		}
	}

	b.do(chromedp.SetValue(chromedp.CSS(`select[name=status]`), "failed"))
	b.submit(`form.filters button[type=submit]`)
	if got := b.rowIDs(); len(got) != 1 || got[0] != s.failed {
		t.Errorf("status failed shows %v, want only %s", got, s.failed)
	}
	if p := b.path(); !strings.Contains(p, "status=failed") {
		t.Errorf("the filter is not in the address: %s", p)
	}

	b.open("/ui/alarms")
	b.do(chromedp.SendKeys(chromedp.CSS(`input[name=label]`), "batch-"))
	b.submit(`form.filters button[type=submit]`)
	if got := b.rowIDs(); len(got) != 3 {
		t.Errorf("label batch- shows %v, want the batch of 3", got)
	}
	if v := evalIn[string](b, `document.querySelector("input[name=label]").value`); v != "batch-" {
		t.Errorf("the filter form forgot the label: %q", v)
	}

	e.createBatch(60, `{"kind":"once","delay_seconds":3600,"label":"bulk-load"}`)
	b.open("/ui/alarms?label=bulk-")
	first := b.rowIDs()
	if len(first) != 50 || b.has(`a[rel=next]`) != true {
		t.Fatalf("the first page of 60 alarms shows %d rows, next link %v", len(first), b.has(`a[rel=next]`))
	}
	b.submit(`a[rel=next]`)
	second := b.rowIDs()
	if len(second) != 10 || b.has(`a[rel=next]`) || !b.has(`.pager a`) {
		t.Errorf("the second page shows %d rows (want 10), a next link %v, a first-page link %v", len(second), b.has(`a[rel=next]`), b.has(`.pager a`))
	}
	if len(second) > 0 && strings.Contains(strings.Join(first, " "), second[0]) {
		t.Error("the second page repeats the first")
	}
	if p := b.path(); !strings.Contains(p, "label=bulk-") || !strings.Contains(p, "cursor=") {
		t.Errorf("the next page's address lost the filter or the cursor: %s", p)
	}

	b.open("/ui/alarms")
	b.loading("searching by id", chromedp.SendKeys(chromedp.CSS(`input[name=id]`), s.cron+"\n"))
	if p := b.path(); p != "/ui/alarms/"+s.cron {
		t.Errorf("searching %s led to %s", s.cron, p)
	}
	if h := b.text("h1"); !strings.Contains(h, s.cron) {
		t.Errorf("the alarm page's title is %q", h)
	}
}

// The alarm page: a payload is redacted, never shown; a cron series lists its next 10
// occurrences; times read in the viewer's zone, with UTC kept in the title.
func TestBrowserAlarmPage(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	b := e.tab(t, newBrowser(t))
	b.signIn(e.admin)

	b.open("/ui/alarms/" + s.secret)
	body := b.text("body")
	html := evalIn[string](b, `document.documentElement.outerHTML`)
	if strings.Contains(html, "SECRET") {
		t.Error("the alarm page carries the secret payload or wake message")
	}
	if !strings.Contains(body, "redacted") || !strings.Contains(body, "SHA-256") {
		t.Errorf("the payload is not shown as redacted: %s", body)
	}

	b.open("/ui/alarms/" + s.cron)
	type stamp struct{ Text, Title, When string }
	upcoming := evalIn[[]stamp](b, `Array.from(document.querySelectorAll("ol.upcoming time")).map(function(e){
		return {Text: e.textContent, Title: e.getAttribute("title"), When: e.getAttribute("datetime")}})`)
	if len(upcoming) != 10 {
		t.Fatalf("the cron alarm lists %d upcoming times, want 10", len(upcoming))
	}
	paris, err := time.LoadLocation(browserZone)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range upcoming {
		at, err := time.Parse(time.RFC3339Nano, u.When)
		if err != nil {
			t.Fatalf("datetime %q: %v", u.When, err)
		}
		local := at.In(paris)
		if strings.Contains(u.Text, "UTC") || !strings.Contains(u.Text, local.Format("03:04:05 PM")) || !strings.Contains(u.Text, "GMT+") {
			t.Errorf("occurrence %s reads %q, want %s in %s", u.When, u.Text, local.Format("03:04:05 PM"), browserZone)
		}
		if local.Hour() != 9 || local.Weekday() == time.Saturday || local.Weekday() == time.Sunday {
			t.Errorf("occurrence %s is %s in Paris, want a weekday at 09:00", u.When, local)
		}
		if want := at.UTC().Format("2006-01-02 15:04:05 UTC"); u.Title != want {
			t.Errorf("occurrence %s has the title %q, want %q", u.When, u.Title, want)
		}
	}
	if n := evalIn[int](b, `Array.from(document.querySelectorAll("time")).filter(function(e){return /UTC/.test(e.textContent)}).length`); n != 0 {
		t.Errorf("%d times on the page still read UTC", n)
	}

	b.open("/ui/alarms/" + s.failed)
	timeline := b.text("ol.timeline")
	for _, want := range []string{"created", "failed", "HTTP 503: receiver down"} {
		if !strings.Contains(timeline, want) {
			t.Errorf("the failed alarm's history lacks %q: %s", want, timeline)
		}
	}
}

// Retry a failed alarm with its button; select rows and cancel them through the
// confirmation page, which says how many.
func TestBrowserRetryAndBulkCancel(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	b := e.tab(t, newBrowser(t))
	b.signIn(e.admin)

	b.open("/ui/alarms/" + s.failed)
	b.submit(`form[action$="/retry"] button`)
	if f := b.text(".flash"); f != "Done: retry." {
		t.Errorf("the flash after retry says %q", f)
	}
	if st := b.text("main .status"); st != "active" {
		t.Errorf("after retry the alarm page shows %q", st)
	}
	if tl := b.text("ol.timeline"); !strings.Contains(tl, "retried") {
		t.Errorf("the history does not record the retry: %s", tl)
	}
	colour := func(sel string) string {
		return evalIn[string](b, `getComputedStyle(document.querySelector("`+sel+`")).color`)
	}
	if failure, retry := colour(".ev-failed .msg"), colour(".ev-retried .msg"); failure == retry {
		t.Errorf("who retried is written in the colour of an error (%s)", retry)
	}

	b.open("/ui/alarms?label=batch-")
	for _, id := range s.batch[:2] {
		b.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`input[name=ids][value=%q]`, id)), chromedp.NodeVisible))
	}
	b.submit(`#bulk button[value=cancel]`)
	if p := b.path(); p != "/ui/alarms/bulk" {
		t.Fatalf("bulk cancel led to %s", p)
	}
	if c := b.text(".confirm .big"); c != "This will cancel 2 alarms." {
		t.Errorf("the confirmation says %q", c)
	}
	for _, id := range s.batch {
		if a, _ := e.store.Get(e.ctx, ports.AnyOwner, id); a.Status != "active" {
			t.Fatalf("alarm %s is %s before the confirmation", id, a.Status)
		}
	}
	b.submit(`.confirm button[type=submit]`)
	if f := b.text(".flash"); f != "cancel: 2 of 2 alarms changed." {
		t.Errorf("the flash after the bulk cancel says %q", f)
	}
	for i, id := range s.batch {
		a, _ := e.store.Get(e.ctx, ports.AnyOwner, id)
		if want := map[bool]string{true: "cancelled", false: "active"}[i < 2]; string(a.Status) != want {
			t.Errorf("alarm %s is %s, want %s", id, a.Status, want)
		}
	}
	statuses := b.text("main tbody")
	if strings.Count(statuses, "cancelled") != 2 {
		t.Errorf("the table does not show the 2 cancelled alarms: %s", statuses)
	}
}

// Pausing dispatch from Settings asks first (a JavaScript confirm), then every page
// shows the red banner until it is resumed.
func TestBrowserPauseAndResume(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	b := e.tab(t, newBrowser(t))
	b.signIn(e.admin)

	b.open("/ui/settings")
	b.submit(`form[action$="/dispatch/pause"] button`)
	b.expectDialog("Pause dispatch for the whole cluster?")
	if f := b.text(".flash"); !strings.HasPrefix(f, "Dispatch paused") {
		t.Errorf("the flash after pausing says %q", f)
	}
	for _, p := range []string{"/ui/", "/ui/alarms", "/ui/alarms/" + s.cron, "/ui/failed", "/ui/nodes", "/ui/settings"} {
		b.open(p)
		if !b.has(".banner.paused") || !strings.Contains(b.text(".banner.paused"), "Dispatch is paused cluster-wide") {
			t.Errorf("no pause banner on %s", p)
		}
		if bg := evalIn[string](b, `getComputedStyle(document.querySelector(".banner.paused")).backgroundColor`); !strings.HasPrefix(bg, "rgb(179, 38, 30") {
			t.Errorf("the banner on %s is %s, not red", p, bg)
		}
	}
	for _, dark := range []bool{false, true} {
		b.viewport(1280, 800, dark)
		b.open("/ui/alarms")
		if c := evalIn[float64](b, contrastJS(".banner.paused")); c < 4.5 {
			t.Errorf("the banner's text has a contrast of %.1f:1 (dark %v), want at least 4.5:1", c, dark)
		}
	}
	b.viewport(1280, 800, false)

	b.open("/ui/settings")
	b.submit(`form[action$="/dispatch/resume"] button`)
	if f := b.text(".flash"); f != "Dispatch resumed." {
		t.Errorf("the flash after resuming says %q", f)
	}
	if b.has(".banner.paused") {
		t.Error("the banner stays after resuming")
	}
}

// Back up now, on Settings, writes a copy to the node's --backup-dir and says so.
func TestBrowserBackupNow(t *testing.T) {
	e := newEnv(t)
	e.seed()
	b := e.tab(t, newBrowser(t))
	b.signIn(e.admin)

	b.open("/ui/settings")
	b.submit(`form[action$="/settings/backup"] button`)
	if f := b.text(".flash"); !strings.HasPrefix(f, "Backup written and checked: chronos-") || !strings.Contains(f, e.backupDir) {
		t.Errorf("the flash after backing up says %q", f)
	}
	if ents, err := os.ReadDir(e.backupDir); err != nil || len(ents) != 1 {
		t.Errorf("--backup-dir holds %v (%v); want the one backup", ents, err)
	}
}

// A form whose CSRF token was tampered with is refused with a 403 page.
func TestBrowserCSRFRefused(t *testing.T) {
	e := newEnv(t)
	e.seed()
	b := e.tab(t, newBrowser(t))
	b.signIn(e.admin)

	b.open("/ui/settings")
	b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('form[action$="/retention/run"] input[name=csrf]').value = "forged"`))
	b.submit(`form[action$="/retention/run"] button`)
	if h := b.text("h1"); h != "403 · Forbidden" {
		t.Errorf("a forged CSRF token got %q", h)
	}
	if m := b.text("main .error"); !strings.Contains(m, "CSRF") {
		t.Errorf("the refusal says %q", m)
	}
}

// A read-only session sees every page and no button that changes anything; signing
// out goes back to sign-in, and the dashboard then asks to sign in again.
func TestBrowserReadOnlyAndSignOut(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	b := e.tab(t, newBrowser(t))
	b.signIn(e.reader)
	if who := b.text(".who"); !strings.Contains(who, "read-only") {
		t.Errorf("the header says %q for a read-only session", who)
	}
	for _, p := range []string{"/ui/", "/ui/alarms", "/ui/alarms/" + s.failed, "/ui/alarms/" + s.cron, "/ui/failed", "/ui/nodes",
		"/ui/endpoints", "/ui/tokens", "/ui/settings"} {
		b.open(p)
		if h := b.text("h1"); strings.HasPrefix(h, "403") || strings.HasPrefix(h, "5") {
			t.Errorf("%s answers %q to a read-only session", p, h)
		}
		forms := evalIn[[]string](b, `Array.from(document.querySelectorAll("form[method=post]")).map(function(f){return f.getAttribute("action")}).filter(function(a){return a !== "/ui/logout"})`)
		if len(forms) > 0 {
			t.Errorf("%s offers a read-only session forms that change things: %v", p, forms)
		}
		if n := evalIn[int](b, `document.querySelectorAll("main input[type=checkbox]").length`); n > 0 {
			t.Errorf("%s offers a read-only session %d selection boxes", p, n)
		}
	}

	b.submit(`form.logout button`)
	if p := b.path(); p != "/ui/login" {
		t.Errorf("signing out led to %s", p)
	}
	b.open("/ui/")
	if p := b.path(); p != "/ui/login" {
		t.Errorf("after signing out /ui/ is at %s, want the sign-in page", p)
	}
}

// The overview's live region fetches its fragment every 5 seconds: a new alarm shows
// in the counts without a reload.
func TestBrowserOverviewRefreshesLive(t *testing.T) {
	e := newEnv(t)
	e.seed()
	b := e.tab(t, newBrowser(t))
	b.signIn(e.admin)
	total := func() string {
		return evalIn[string](b, `Array.from(document.querySelectorAll("#live .card")).filter(function(c){
			return c.querySelector(".label").textContent === "total"})[0].querySelector(".value").textContent`)
	}
	if got := total(); got != "7" {
		t.Fatalf("the overview counts %s alarms, want 7", got)
	}
	b.do(chromedp.Evaluate[chromedp.Void](`window.chronosTestMark = "same page"`))
	e.create(`{"kind":"once","delay_seconds":600,"label":"late-arrival"}`)
	e.create(`{"kind":"once","delay_seconds":600,"label":"late-arrival"}`)
	start := time.Now()
	b.do(chromedp.Poll[chromedp.Void](`(function(){
		var c = Array.from(document.querySelectorAll("#live .card")).filter(function(c){
			return c.querySelector(".label").textContent === "total"})[0];
		return c && c.querySelector(".value").textContent === "9";
	})()`, chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(200*time.Millisecond)))
	if d := time.Since(start); d > 12*time.Second {
		t.Errorf("the live region took %s to refresh", d)
	}
	if m := evalIn[string](b, `window.chronosTestMark || ""`); m != "same page" {
		t.Error("the page reloaded instead of refreshing its live region")
	}
	if n := evalIn[int](b, `Array.from(document.querySelectorAll("#live time")).filter(function(e){return /UTC/.test(e.textContent)}).length`); n != 0 {
		t.Error("the refreshed region shows times in UTC: the script did not localise them")
	}
}
