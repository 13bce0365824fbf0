//go:build ui

package ui

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// An admin creates a token on the tokens page: its secret is shown once with a copy
// button, works at once, and is gone from the page after; revoking asks first (a
// JavaScript confirm) and the token stops working.
func TestBrowserTokensPage(t *testing.T) {
	e := newEnv(t)
	b := e.tab(t, newBrowser(t))
	b.signIn(e.admin)
	b.open("/ui/tokens")
	if rows := evalIn[int](b, `document.querySelectorAll("main tbody tr").length`); rows != 3 {
		t.Errorf("the tokens page lists %d tokens, want the test server's 3", rows)
	}
	b.do(chromedp.SendKeys(`form[action="/ui/tokens"][method=post] input[name=owner]`, "billing"),
		chromedp.SetValue(`select[name=scope]`, "admin:read"),
		chromedp.SendKeys(`input[name=note]`, "billing dashboards"))
	b.submit(`form[action="/ui/tokens"][method=post] button[type=submit]`)
	secret := evalIn[string](b, `(document.getElementById("issued-secret") || {}).value || ""`)
	if !strings.HasPrefix(secret, "chr_") || !strings.Contains(b.text(".issued"), "shown this once") {
		t.Fatalf("after creating, the page shows no secret: %s", b.text("main"))
	}
	tok, err := e.tokens.Authenticate(e.ctx, secret)
	if err != nil || tok.Owner != "billing" || tok.Scope != "admin:read" || tok.Note != "billing dashboards" {
		t.Fatalf("the shown secret: %+v, %v", tok, err)
	}
	b.do(chromedp.Click(`button[data-copy]`, chromedp.NodeVisible))
	if label := b.text(`button[data-copy]`); label == "Copy" {
		t.Error("the copy button did nothing")
	}
	if sel := evalIn[string](b, `String(window.getSelection()) || (document.activeElement.selectionEnd - document.activeElement.selectionStart > 0 ? document.activeElement.value : "")`); sel != secret {
		t.Errorf("after Copy the secret is not selected (%q)", sel)
	}

	b.open("/ui/tokens?owner=billing")
	if b.has("#issued-secret") || strings.Contains(evalIn[string](b, `document.documentElement.outerHTML`), secret) {
		t.Fatal("the secret is shown again")
	}
	if row := b.text("main tbody"); !strings.Contains(row, tok.ID) || !strings.Contains(row, "billing dashboards") || !strings.Contains(row, "valid") {
		t.Errorf("billing's row: %s", row)
	}
	b.submit(`form[action="/ui/tokens/` + tok.ID + `/revoke"] button`)
	b.expectDialog("Revoke token " + tok.ID)
	if f := b.text(".flash"); f != "Token "+tok.ID+" revoked." {
		t.Errorf("the flash after revoking says %q", f)
	}
	if _, err := e.tokens.Authenticate(e.ctx, secret); err == nil {
		t.Error("the revoked token still works")
	}
	b.open("/ui/tokens?owner=billing")
	if row := b.text("main tbody"); !strings.Contains(row, "revoked") || b.has(`form[action$="/revoke"]`) {
		t.Errorf("after revoking, billing's row: %s", row)
	}
}

// The endpoints page lists the owners' endpoints with their limits, filters by owner,
// and shows no secret.
func TestBrowserEndpointsPage(t *testing.T) {
	e := newEnv(t)
	e.adminPost("/admin/v1/owners/shop/endpoints", `{"name":"billing","url":"https://billing.example.com/wake","secrets":["topsecret-1-of-at-least-24-bytes"],"max_in_flight":4,"rate_per_second":10}`)
	e.adminPost("/admin/v1/owners/other/endpoints", `{"name":"hooks","url":"https://other.example.com/h","secrets":["topsecret-2-of-at-least-24-bytes"]}`)
	b := e.tab(t, newBrowser(t))
	b.signIn(e.reader)
	b.open("/ui/endpoints")
	body := b.text("main tbody")
	for _, want := range []string{"billing", "https://billing.example.com/wake", "10/s", "hooks", "no cap", "unpaced"} {
		if !strings.Contains(body, want) {
			t.Errorf("the endpoints table lacks %q: %s", want, body)
		}
	}
	if strings.Contains(evalIn[string](b, `document.documentElement.outerHTML`), "topsecret") {
		t.Error("the endpoints page carries a secret")
	}
	b.do(chromedp.SendKeys(`form[action="/ui/endpoints"] input[name=owner]`, "other"))
	b.submit(`form[action="/ui/endpoints"] button[type=submit]`)
	if body := b.text("main tbody"); strings.Contains(body, "billing") || !strings.Contains(body, "hooks") {
		t.Errorf("filtered by owner other: %s", body)
	}
}
