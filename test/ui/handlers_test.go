package ui

import (
	"github.com/chronoshq/chronos/ports"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/webui"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
)

// Signing in takes an admin token and nothing else, and gives a cookie a script cannot
// read nor another site send; signing out ends the session for every node.
func TestSignInAndOut(t *testing.T) {
	e := newEnv(t)
	c := e.browser()
	if r := e.get(c, "/ui/alarms?status=failed"); r.status != http.StatusSeeOther || r.location != "/ui/login?next=%2Fui%2Falarms%3Fstatus%3Dfailed" {
		t.Errorf("a page without a session: %d to %q, want the sign-in page coming back after", r.status, r.location)
	}
	if r := e.post(c, "/ui/login", url.Values{"token": {"chr_nope"}}); r.status != http.StatusUnauthorized || !strings.Contains(r.body, "Unknown or revoked token") {
		t.Errorf("a wrong token: %d %s", r.status, r.body)
	}
	if r := e.post(c, "/ui/login", url.Values{"token": {e.owner}}); r.status != http.StatusForbidden || !strings.Contains(r.body, "owner token") {
		t.Errorf("an owner token: %d", r.status)
	}
	r := e.post(c, "/ui/login", url.Values{"token": {e.admin}, "next": {"/ui/nodes"}})
	if r.status != http.StatusSeeOther || r.location != "/ui/nodes" {
		t.Fatalf("an admin token: %d to %q", r.status, r.location)
	}
	cookie := r.header.Get("Set-Cookie")
	for _, want := range []string{"chronos_session=", "Path=/ui/", "HttpOnly", "SameSite=Strict", "Max-Age="} {
		if !strings.Contains(cookie, want) {
			t.Errorf("session cookie %q lacks %s", cookie, want)
		}
	}
	if strings.Contains(cookie, e.admin) {
		t.Error("the session cookie carries the token itself")
	}
	if r := e.post(e.browser(), "/ui/login", url.Values{"token": {e.admin}, "next": {"https://evil.example/"}}); r.location != "/ui/" {
		t.Errorf("sign-in sent the browser to %q, want the dashboard", r.location)
	}

	// The same cookie works on another node of the cluster (another UI on the store).
	other, err := webui.New(nil, e.tokens, e.store, webui.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/ui/", "/ui/alarms", "/ui/failed", "/ui/nodes", "/ui/settings"} {
		if r := e.get(c, p); r.status != http.StatusOK {
			t.Errorf("GET %s signed in: %d", p, r.status)
		}
	}
	u, _ := url.Parse(e.srv.URL + "/ui/")
	saved := c.Jar.Cookies(u)
	csrf := e.csrf(c, "/ui/")
	if r := e.post(c, "/ui/logout", url.Values{}); r.status != http.StatusForbidden {
		t.Errorf("sign-out without the CSRF token: %d, want 403", r.status)
	}
	if r := e.post(c, "/ui/logout", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther || r.location != "/ui/login" {
		t.Errorf("sign-out: %d to %q", r.status, r.location)
	}
	if r := e.get(c, "/ui/"); r.status != http.StatusSeeOther {
		t.Errorf("after sign-out: %d, want the sign-in page", r.status)
	}
	replay := e.browser()
	replay.Jar.SetCookies(u, saved)
	if r := e.get(replay, "/ui/"); r.status != http.StatusSeeOther {
		t.Errorf("the signed-out cookie replayed: %d, want refused", r.status)
	}
	_ = other
}

// Every answer, signed in or not, carries the security headers.
func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t)
	c := e.signIn(e.admin)
	for _, p := range []string{"/ui/login", "/ui/", "/ui/alarms", "/ui/static/app.js", "/ui/nope"} {
		r := e.get(c, p)
		h := r.header
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") ||
			!strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe") {
			t.Errorf("%s: Content-Security-Policy %q", p, csp)
		}
		if h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") != "same-origin" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: headers %v", p, h)
		}
	}
	if r := e.get(c, "/ui/nope"); r.status != http.StatusNotFound {
		t.Errorf("an unknown page: %d", r.status)
	}
}

// A form without the session's CSRF token, with another's, or posted from another
// site changes nothing.
func TestCSRFRefused(t *testing.T) {
	e := newEnv(t)
	c := e.signIn(e.admin)
	good := e.csrf(c, "/ui/settings")
	other := e.csrf(e.signIn(e.admin), "/ui/settings")
	for name, try := range map[string]func() answer{
		"no token":        func() answer { return e.post(c, "/ui/settings/dispatch/pause", url.Values{}) },
		"another session": func() answer { return e.post(c, "/ui/settings/dispatch/pause", url.Values{"csrf": {other}}) },
		"another site": func() answer {
			return e.postFrom(c, "https://evil.example", "/ui/settings/dispatch/pause", url.Values{"csrf": {good}})
		},
		"sign-in from afar": func() answer {
			return e.postFrom(e.browser(), "https://evil.example", "/ui/login", url.Values{"token": {e.admin}})
		},
	} {
		if r := try(); r.status != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, r.status)
		}
	}
	if st, ok, _ := e.store.GetState(e.ctx, "dispatch"); ok && strings.Contains(st.Value, `"paused":true`) {
		t.Fatal("a refused form paused dispatch")
	}
	// Without the page's script nothing said the viewer was asked: the server asks.
	if r := e.post(c, "/ui/settings/dispatch/pause", url.Values{"csrf": {good}}); r.status != http.StatusOK ||
		!strings.Contains(r.body, "Pause dispatch for the whole cluster?") || !strings.Contains(r.body, `name="confirm" value="yes"`) {
		t.Errorf("the form without confirm: %d, want the question page", r.status)
	}
	if st, ok, _ := e.store.GetState(e.ctx, "dispatch"); ok && strings.Contains(st.Value, `"paused":true`) {
		t.Fatal("the question page paused dispatch")
	}
	if r := e.post(c, "/ui/settings/dispatch/pause", url.Values{"csrf": {good}, "confirm": {"yes"}}); r.status != http.StatusSeeOther {
		t.Errorf("the real form: %d", r.status)
	}
	if r := e.get(c, "/ui/alarms"); !strings.Contains(r.body, "Dispatch is paused cluster-wide") {
		t.Error("no pause banner after pausing")
	}
}

// An admin:read session sees every page and no button that changes anything, and the
// server refuses such changes from it.
func TestReadOnlySession(t *testing.T) {
	e := newEnv(t)
	id := e.create(`{"kind":"once","delay_seconds":0,"max_failures":1}`)
	e.fail(id)
	c := e.signIn(e.reader)
	for _, p := range []string{"/ui/", "/ui/alarms", "/ui/alarms/" + id, "/ui/failed", "/ui/nodes", "/ui/settings"} {
		r := e.get(c, p)
		if r.status != http.StatusOK {
			t.Errorf("GET %s read-only: %d", p, r.status)
		}
		for _, button := range []string{"/retry\"", "dispatch/pause", "retention/run", "settings/backup", "alarms/bulk", "name=\"ids\""} {
			if strings.Contains(r.body, button) {
				t.Errorf("%s shows %s to a read-only session", p, button)
			}
		}
	}
	csrf := e.csrf(c, "/ui/")
	for _, p := range []string{"/ui/alarms/" + id + "/retry", "/ui/settings/dispatch/pause", "/ui/settings/retention/run", "/ui/settings/backup", "/ui/alarms/bulk"} {
		if r := e.post(c, p, url.Values{"csrf": {csrf}, "action": {"delete"}, "ids": {id}, "confirm": {"yes"}}); r.status != http.StatusForbidden {
			t.Errorf("POST %s read-only: %d, want 403", p, r.status)
		}
	}
	if a, _ := e.store.Get(e.ctx, ports.AnyOwner, id); a.Status != domain.StatusFailed {
		t.Errorf("the alarm is %s after refused changes", a.Status)
	}
}

// The alarms page filters across owners and opens an alarm by id; the alarm page shows
// the payload's size and hash, never its content, and the history.
func TestAlarmsAndAlarmPage(t *testing.T) {
	e := newEnv(t)
	secret := e.create(`{"kind":"once","delay_seconds":3600,"label":"vault","payload":{"key":"SECRET-42"},"wake_message":"pin SECRET-43"}`)
	cron := e.create(`{"kind":"cron","cron_expr":"0 9 * * 1-5","timezone":"Europe/Paris","label":"standup"}`)
	failed := e.create(`{"kind":"once","delay_seconds":0,"max_failures":1,"label":"flaky"}`)
	e.fail(failed)
	c := e.signIn(e.admin)

	all := e.get(c, "/ui/alarms")
	for _, id := range []string{secret, cron, failed} {
		if !strings.Contains(all.body, id) {
			t.Errorf("alarm %s missing from the list", id)
		}
	}
	f := e.get(c, "/ui/alarms?status=failed")
	if !strings.Contains(f.body, failed) || strings.Contains(f.body, secret) {
		t.Error("status=failed does not filter")
	}
	if r := e.get(c, "/ui/alarms?label=stand"); !strings.Contains(r.body, cron) || strings.Contains(r.body, failed) {
		t.Error("label prefix does not filter")
	}
	if r := e.get(c, "/ui/alarms?status=done"); r.status != http.StatusBadRequest || !strings.Contains(r.body, "status") {
		t.Errorf("a bad status: %d", r.status)
	}
	if r := e.get(c, "/ui/alarms?id="+cron); r.status != http.StatusSeeOther || r.location != "/ui/alarms/"+cron {
		t.Errorf("search by id: %d to %q", r.status, r.location)
	}
	page := e.get(c, "/ui/alarms/"+secret)
	if strings.Contains(page.body, "SECRET") || !strings.Contains(page.body, "redacted") || !strings.Contains(page.body, "SHA-256") {
		t.Errorf("the alarm page shows the secret or no hash")
	}
	ap := e.get(c, "/ui/alarms/"+failed)
	if !strings.Contains(ap.body, `<h2 id="attempts">Attempts</h2>`) || !strings.Contains(ap.body, "<td>503</td>") ||
		!strings.Contains(ap.body, "3.0 ms") || strings.Contains(ap.body, "<pre>receiver down</pre>") || !strings.Contains(ap.body, "13 bytes") {
		t.Errorf("the failed alarm's attempts are missing, or show the redacted body:\n%s", ap.body)
	}
	cp := e.get(c, "/ui/alarms/"+cron)
	if n := strings.Count(cp.body, "<li><time"); n != 10 {
		t.Errorf("the cron alarm lists %d upcoming occurrences, want 10", n)
	}
	fp := e.get(c, "/ui/alarms/"+failed)
	if !strings.Contains(fp.body, "HTTP 503: receiver down") || !strings.Contains(fp.body, "ev-failed") {
		t.Error("the failed alarm's history does not show the failure")
	}
	if r := e.get(c, "/ui/alarms/nope"); r.status != http.StatusNotFound {
		t.Errorf("an unknown alarm: %d", r.status)
	}

	// Delete asks first when the browser did not (no script): nothing is gone until yes.
	csrf := e.csrf(c, "/ui/alarms/"+secret)
	if r := e.post(c, "/ui/alarms/"+secret+"/delete", url.Values{"csrf": {csrf}}); r.status != http.StatusOK || !strings.Contains(r.body, "and its history for good?") {
		t.Errorf("delete without confirm: %d, want the question page", r.status)
	}
	if _, err := e.store.Get(e.ctx, ports.AnyOwner, secret); err != nil {
		t.Fatal("the question page deleted the alarm")
	}
	if r := e.post(c, "/ui/alarms/"+secret+"/delete", url.Values{"csrf": {csrf}, "confirm": {"yes"}}); r.status != http.StatusSeeOther {
		t.Errorf("confirmed delete: %d", r.status)
	}
	if _, err := e.store.Get(e.ctx, ports.AnyOwner, secret); err == nil {
		t.Error("the confirmed delete left the alarm")
	}
}

// Retry from the alarm page makes a failed alarm active, recorded in its history with
// the token; bulk actions say how many alarms they will touch and ask first.
func TestRetryAndBulk(t *testing.T) {
	e := newEnv(t)
	failed := e.create(`{"kind":"once","delay_seconds":0,"max_failures":1,"label":"flaky"}`)
	e.fail(failed)
	var batch []string
	for range 3 {
		batch = append(batch, e.create(`{"kind":"once","delay_seconds":3600,"label":"batch-x"}`))
	}
	c := e.signIn(e.admin)
	csrf := e.csrf(c, "/ui/alarms/"+failed)
	if r := e.post(c, "/ui/alarms/"+failed+"/retry", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Fatalf("retry: %d", r.status)
	}
	if a, _ := e.store.Get(e.ctx, ports.AnyOwner, failed); a.Status != domain.StatusActive {
		t.Errorf("after retry the alarm is %s", a.Status)
	}
	if p := e.get(c, "/ui/alarms/"+failed); !strings.Contains(p.body, "Done: retry.") || !strings.Contains(p.body, "retried") {
		t.Error("no report of the retry, or no retried event")
	}

	form := url.Values{"csrf": {csrf}, "action": {"cancel"}, "scope": {"filter"}, "label": {"batch-"}}
	confirm := e.post(c, "/ui/alarms/bulk", form)
	if confirm.status != http.StatusOK || !strings.Contains(confirm.body, "This will cancel <strong>3 alarms</strong>") {
		t.Fatalf("bulk cancel confirmation: %d %s", confirm.status, confirm.body)
	}
	for _, id := range batch {
		if a, _ := e.store.Get(e.ctx, ports.AnyOwner, id); a.Status != domain.StatusActive {
			t.Fatal("the confirmation page already cancelled")
		}
	}
	form.Set("confirm", "yes")
	if r := e.post(c, "/ui/alarms/bulk", form); r.status != http.StatusSeeOther {
		t.Fatalf("confirmed bulk cancel: %d", r.status)
	}
	for _, id := range batch {
		if a, _ := e.store.Get(e.ctx, ports.AnyOwner, id); a.Status != domain.StatusCancelled {
			t.Errorf("alarm %s is %s after the bulk cancel", id, a.Status)
		}
	}
	sel := url.Values{"csrf": {csrf}, "action": {"delete"}, "scope": {"selected"}, "ids": {batch[0], batch[1]}}
	if r := e.post(c, "/ui/alarms/bulk", sel); !strings.Contains(r.body, "This will delete <strong>2 alarms</strong>") {
		t.Errorf("delete confirmation: %s", r.body)
	}
	sel.Set("confirm", "yes")
	e.post(c, "/ui/alarms/bulk", sel)
	if _, err := e.store.Get(e.ctx, ports.AnyOwner, batch[0]); err == nil {
		t.Error("a selected alarm survived the bulk delete")
	}
	if _, err := e.store.Get(e.ctx, ports.AnyOwner, batch[2]); err != nil {
		t.Error("an alarm not selected was deleted")
	}
	if r := e.post(c, "/ui/alarms/bulk", url.Values{"csrf": {csrf}, "action": {"delete"}, "scope": {"filter"}}); r.status != http.StatusBadRequest {
		t.Errorf("bulk on the whole cluster: %d, want refused", r.status)
	}
}

// Revoking the token ends its dashboard sessions (within the token cache's second).
func TestRevokedTokenEndsSession(t *testing.T) {
	e := newEnv(t)
	c := e.signIn(e.admin)
	toks, _ := e.tokens.List(e.ctx, "")
	for _, k := range toks {
		if k.Scope == domain.ScopeAdmin {
			if err := e.tokens.Revoke(e.ctx, k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	time.Sleep(1100 * time.Millisecond)
	if r := e.get(c, "/ui/"); r.status != http.StatusSeeOther {
		t.Errorf("a session of a revoked token: %d, want sent to sign in", r.status)
	}
}

// The alarm page of a series shows its options and why and until when it is paused, and
// lists the occurrences it will have once its pause ends.
func TestSeriesOnTheAlarmPage(t *testing.T) {
	e := newEnv(t)
	s := e.create(`{"kind":"cron","cron_expr":"0 9 * * *","timezone":"UTC","misfire":"catch_up","catch_up_limit":7,"max_fires":20,"max_consecutive_skips":4,"jitter_seconds":30}`)
	until := time.Now().UTC().Add(72 * time.Hour).Truncate(time.Second)
	if _, err := e.server.Alarms.PauseWith(e.ctx, "shop", s, domain.PauseSpec{Until: until, Note: "office closed"}); err != nil {
		t.Fatal(err)
	}
	c := e.signIn(e.admin)
	page := e.get(c, "/ui/alarms/"+s)
	for _, want := range []string{"catch_up (newest 7)", "0 of 20", "pauses after 4 skipped in a row", "up to 30 s", "office closed", "resumes", "Paused until"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the series page does not say %q", want)
		}
	}
	if n := strings.Count(page.body, "<li><time"); n != 10 {
		t.Errorf("%d upcoming occurrences listed, want 10 from the pause's end", n)
	}
}

// A bulk action on a filter that matches more alarms than one action takes asks to go
// on with the next ones once it is done, from where it stopped, until none is left.
func TestBulkGoesOnWithTheRest(t *testing.T) {
	e := newEnv(t)
	const many = 10_001 // one more than one action takes
	now, in := time.Now(), time.Hour
	as := make([]domain.Alarm, many)
	for i := range as {
		a, err := domain.NewAlarm(app.NewAlarmID(), domain.Spec{Owner: "shop", Kind: domain.KindOnce, Label: "many-x", Delay: &in},
			now, domain.Defaults{MaxFailures: 3})
		if err != nil {
			t.Fatal(err)
		}
		as[i] = a
	}
	if err := e.store.CreateMany(e.ctx, as); err != nil {
		t.Fatal(err)
	}
	keep := e.create(`{"kind":"once","delay_seconds":3600,"label":"other"}`)
	c := e.signIn(e.admin)
	form := url.Values{"csrf": {e.csrf(c, "/ui/alarms")}, "action": {"delete"}, "scope": {"filter"}, "label": {"many-"}}
	first := e.post(c, "/ui/alarms/bulk", form)
	if !strings.Contains(first.body, "This will delete <strong>10000 alarms</strong>") || !strings.Contains(first.body, "you will be asked to go on") {
		t.Fatalf("first confirmation: %d %s", first.status, first.body)
	}
	form.Set("confirm", "yes")
	next := e.post(c, "/ui/alarms/bulk", form)
	m := regexp.MustCompile(`name="cursor" value="([^"]+)"`).FindStringSubmatch(next.body)
	if next.status != http.StatusOK || m == nil || !strings.Contains(next.body, "delete: 10000 of 10000 alarms changed.") ||
		!strings.Contains(next.body, "This will delete <strong>1 alarm</strong>") {
		t.Fatalf("after the first action: %d %s", next.status, next.body)
	}
	form.Set("cursor", m[1])
	if r := e.post(c, "/ui/alarms/bulk", form); r.status != http.StatusSeeOther {
		t.Fatalf("going on: %d %s", r.status, r.body)
	}
	if left, _, err := e.store.List(e.ctx, ports.ListFilter{Scope: ports.AnyOwner, LabelPrefix: "many-", Limit: 10}); err != nil || len(left) != 0 {
		t.Errorf("%d alarms of the filter left, %v", len(left), err)
	}
	if _, err := e.store.Get(e.ctx, ports.AnyOwner, keep); err != nil {
		t.Errorf("an alarm the filter does not select: %v", err)
	}
}
