//go:build ui

package ui

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// unnamedJS lists the visible controls (inputs, selects, buttons, links, charts) that
// have no accessible name (no label, aria-label, aria-labelledby, text or title), the
// buttons a screen reader cannot tell apart, the navigation landmarks that share a
// name or lead nowhere, and the table header cells that say nothing.
const unnamedJS = `(function(){
	function visible(el) {
		if (!el.getClientRects().length) { return false; }
		var s = getComputedStyle(el);
		return s.visibility !== "hidden" && s.display !== "none";
	}
	function name(el) {
		var n = (el.getAttribute("aria-label") || "").trim();
		if (n) { return n; }
		var by = el.getAttribute("aria-labelledby");
		if (by) {
			n = by.split(/\s+/).map(function(id){ var x = document.getElementById(id); return x ? x.textContent : ""; }).join(" ").trim();
			if (n) { return n; }
		}
		if (el.labels && el.labels.length) {
			n = Array.from(el.labels).map(function(l){ return l.textContent; }).join(" ").trim();
			if (n) { return n; }
		}
		if (el.tagName === "BUTTON" || el.tagName === "A") {
			n = el.textContent.trim();
			if (n) { return n; }
		}
		return (el.getAttribute("title") || "").trim();
	}
	var bad = [], buttons = {}, navs = {};
	document.querySelectorAll("input:not([type=hidden]), select, textarea, button, a[href], svg[role=img]").forEach(function(el){
		if (!visible(el)) { return; }
		var n = name(el);
		if (!n) { bad.push(el.outerHTML.slice(0, 160)); }
		if (n && el.tagName === "BUTTON") {
			if (buttons[n]) { bad.push("two buttons named " + JSON.stringify(n)); }
			buttons[n] = true;
		}
	});
	document.querySelectorAll("nav").forEach(function(el){
		var n = name(el);
		if (navs[n]) { bad.push("two navigation landmarks named " + JSON.stringify(n)); }
		navs[n] = true;
		if (!el.querySelector("a[href]")) { bad.push("an empty navigation landmark: " + el.outerHTML.slice(0, 160)); }
	});
	document.querySelectorAll("th").forEach(function(el){
		if (!el.textContent.trim() && !el.querySelector("input[aria-label]")) { bad.push("a header cell with no name in " + el.closest("table").outerHTML.slice(0, 80)); }
	});
	return bad;
})()`

// focusables lists the visible controls a keyboard user must reach, marking each; the
// radios of a group count once (Tab enters a group, arrows move inside it).
const focusablesJS = `(function(){
	var seen = {}, out = [];
	document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea").forEach(function(el, i){
		if (el.disabled || !el.getClientRects().length || getComputedStyle(el).visibility === "hidden") { return; }
		if (el.type === "radio") {
			if (seen["radio:" + el.name]) { return; }
			seen["radio:" + el.name] = true;
		}
		el.dataset.focusable = String(i);
		out.push(el);
	});
	window.chronosReached = [];
	document.addEventListener("focusin", function(e){
		var el = e.target;
		window.chronosReached.push(el.type === "radio" ? "radio:" + el.name : (el.dataset.focusable || "?"));
	});
	return out.length;
})()`

// unreachedJS lists the marked controls no Tab press reached, and the first focused ones.
const unreachedJS = `(function(){
	var got = {};
	window.chronosReached.forEach(function(k){ got[k] = true; });
	var missed = [];
	document.querySelectorAll("[data-focusable]").forEach(function(el){
		var k = el.type === "radio" ? "radio:" + el.name : el.dataset.focusable;
		if (!got[k]) { missed.push(el.outerHTML.slice(0, 160)); }
	});
	return missed;
})()`

// Every page: each visible control has an accessible name, and Tab from the top
// reaches the skip link, then the navigation, then every control of the page.
func TestBrowserAccessibility(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	e.fail(e.create(`{"kind":"once","delay_seconds":0,"max_failures":1,"label":"flaky-too"}`)) // two rows with a Retry button
	e.feedCharts(5)
	b := e.tab(t, newBrowser(t))

	check := func(name string, topNav bool) {
		t.Helper()
		if bad := evalIn[[]string](b, unnamedJS); len(bad) > 0 {
			t.Errorf("%s: accessibility gaps:\n%s", name, strings.Join(bad, "\n"))
		}
		n := evalIn[int](b, focusablesJS)
		var order []string
		// A datetime-local field takes a Tab press for each of its parts, so press until
		// every control was reached, within a bound.
		for i := 0; i < n+20 && (i < 10 || len(evalIn[[]string](b, unreachedJS)) > 0); i++ {
			b.do(chromedp.KeyEvent(kb.Tab))
			if i < 10 {
				order = append(order, evalIn[string](b, `(document.activeElement.innerText || document.activeElement.getAttribute("aria-label") || document.activeElement.name || "").trim()`))
			}
			if i == 0 && evalIn[float64](b, `document.activeElement.getBoundingClientRect().left`) < 0 {
				t.Errorf("%s: the focused skip link is off screen", name)
			}
		}
		if order[0] != "Skip to content" {
			t.Errorf("%s: the first Tab focuses %q, want the skip link", name, order[0])
		}
		if want := "chronos Overview Alarms Failed Nodes Endpoints Calendars Tokens Settings"; topNav && strings.Join(order[1:], " ") != want {
			t.Errorf("%s: Tab then goes through %q, want %q", name, strings.Join(order[1:], " "), want)
		}
		if missed := evalIn[[]string](b, unreachedJS); len(missed) > 0 {
			t.Errorf("%s: Tab never reaches:\n%s", name, strings.Join(missed, "\n"))
		}
	}

	b.open("/ui/login")
	if bad := evalIn[[]string](b, unnamedJS); len(bad) > 0 {
		t.Errorf("sign-in: controls without an accessible name: %v", bad)
	}
	if f := evalIn[string](b, `document.activeElement.id`); f != "token" {
		t.Errorf("the sign-in page focuses %q, want the token field", f)
	}
	b.signIn(e.admin)
	for _, p := range []struct{ name, path string }{
		{"overview", "/ui/"},
		{"alarms", "/ui/alarms"},
		{"alarms filtered", "/ui/alarms?status=failed"},
		{"alarm (cron)", "/ui/alarms/" + s.cron},
		{"alarm (failed)", "/ui/alarms/" + s.failed},
		{"failed", "/ui/failed"},
		{"nodes", "/ui/nodes"},
		{"endpoints", "/ui/endpoints"},
		{"calendars", "/ui/calendars"},
		{"tokens", "/ui/tokens"},
		{"settings", "/ui/settings"},
	} {
		b.open(p.path)
		check(p.name, true)
	}
	b.open("/ui/alarms?label=batch-")
	b.do(chromedp.Click(chromedp.CSS(`input[data-select-all]`), chromedp.NodeVisible))
	if n := evalIn[int](b, `document.querySelectorAll("input[name=ids]:checked").length`); n != 3 {
		t.Errorf("select-all ticked %d boxes, want 3", n)
	}
	b.submit(`#bulk button[value=retry]`)
	check("confirmation", true)
}

// At phone width (390×844) and in dark mode the pages fit the screen: nothing scrolls
// sideways but the tables, inside their own box.
func TestBrowserPhoneAndDark(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	e.feedCharts(5)
	b := e.tab(t, newBrowser(t))
	b.signIn(e.admin)

	for _, v := range []struct {
		name string
		w, h int64
		dark bool
	}{{"phone", 390, 844, false}, {"phone dark", 390, 844, true}, {"desktop dark", 1280, 800, true}} {
		b.viewport(v.w, v.h, v.dark)
		for _, p := range []string{"/ui/", "/ui/alarms", "/ui/alarms/" + s.cron, "/ui/alarms/" + s.failed, "/ui/failed", "/ui/nodes",
			"/ui/endpoints", "/ui/tokens", "/ui/settings"} {
			b.open(p)
			type fit struct{ Scroll, Inner int }
			f := evalIn[fit](b, `({Scroll: document.documentElement.scrollWidth, Inner: window.innerWidth})`)
			if f.Scroll > f.Inner {
				t.Errorf("%s %s: the page is %d px wide in a %d px window", v.name, p, f.Scroll, f.Inner)
			}
			bg := evalIn[string](b, `getComputedStyle(document.body).backgroundColor`)
			if dark := bg == "rgb(15, 18, 22)"; dark != v.dark {
				t.Errorf("%s %s: the background is %s", v.name, p, bg)
			}
		}
	}
}
