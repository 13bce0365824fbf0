//go:build ui

package ui

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// The screenshots of docs/dashboard.md, one per page, at 1280×800 (full page) unless
// named otherwise: `make screenshots` writes them to docs/img/dashboard.
func TestBrowserScreenshots(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	for _, body := range []string{
		`{"kind":"cron","cron_expr":"*/15 * * * *","timezone":"UTC","label":"sync-inventory"}`,
		`{"kind":"cron","cron_expr":"30 7 * * *","timezone":"America/New_York","label":"daily-digest"}`,
		`{"kind":"once","delay_seconds":900,"label":"trial-ends"}`,
		`{"kind":"once","delay_seconds":86400,"label":"renewal-notice"}`,
	} {
		e.create(body)
	}
	e.feedCharts(60)
	b := e.tab(t, newBrowser(t))

	b.open("/ui/login")
	b.screenshot("login")
	b.signIn(e.admin)
	b.screenshot("overview")
	b.viewport(390, 844, false)
	b.open("/ui/")
	b.screenshot("overview-phone")
	b.viewport(1280, 800, true)
	b.open("/ui/")
	b.screenshot("overview-dark")
	b.viewport(1280, 800, false)

	b.open("/ui/alarms")
	b.screenshot("alarms")
	b.do(chromedp.SendKeys(chromedp.CSS(`input[name=label]`), "batch-"))
	b.submit(`form.filters button[type=submit]`)
	b.do(chromedp.Click(chromedp.CSS(`input[name=ids][value="`+s.batch[0]+`"]`), chromedp.NodeVisible),
		chromedp.Click(chromedp.CSS(`input[name=ids][value="`+s.batch[2]+`"]`), chromedp.NodeVisible))
	b.screenshot("alarms-filtered")
	b.submit(`#bulk button[value=cancel]`)
	b.screenshot("confirm")

	b.open("/ui/alarms/" + s.cron)
	b.screenshot("alarm-cron")
	b.open("/ui/alarms/" + s.failed)
	b.submit(`form[action$="/retry"] button`)
	e.fail(s.failed) // failed again after the retry: a longer history
	b.open("/ui/alarms/" + s.failed)
	b.screenshot("alarm-failed")
	b.open("/ui/failed")
	b.screenshot("failed")
	b.open("/ui/nodes")
	b.screenshot("nodes")

	b.open("/ui/settings")
	b.submit(`form[action$="/dispatch/pause"] button`)
	b.expectDialog("Pause dispatch")
	b.open("/ui/settings")
	b.screenshot("settings-paused")
}
