package webui

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// page is what every template gets: the layout's needs and the page's own Data.
type page struct {
	Title    string
	Nav      string // the active navigation entry
	Viewer   *viewer
	Dispatch domain.DispatchState // for the pause banner on every page
	Flash    string               // one line saying what the last action did
	Data     any
	// Tokens and Endpoints say whether those pages are served, for the navigation.
	Tokens, Endpoints bool
	// Calendars says whether the calendars page is served.
	Calendars bool
}

// pageNames are the full pages; each is parsed with the layout and the partials.
var pageNames = []string{"login", "overview", "alarms", "alarm", "failed", "nodes", "settings", "tokens", "endpoints", "calendars", "confirm", "ask", "error"}

// pages holds one template set per page, so their blocks do not collide.
type pages struct {
	sets map[string]*template.Template
}

var funcs = template.FuncMap{
	"when": when,
	"weekdayNames": func() []string {
		return []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	},
	"seconds":  func(d time.Duration) string { return formatSeconds(d.Seconds()) },
	"secs":     formatSeconds,
	"ms":       func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + " ms" },
	"terminal": func(s domain.Status) bool { return s.Terminal() },
	"add":      func(a, b int) int { return a + b },
}

func loadPages() (*pages, error) {
	p := &pages{sets: map[string]*template.Template{}}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFiles,
			"templates/layout.html", "templates/partials.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("webui: template %s: %w", name, err)
		}
		p.sets[name] = t
	}
	return p, nil
}

// render answers the page, rendered in memory first so a template error becomes a
// clean 500 rather than half a page.
func (u *UI) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	if p.Viewer != nil {
		if st, err := u.dispatch.Dispatch(r.Context()); err == nil {
			p.Dispatch = st
		}
	}
	if p.Flash == "" {
		p.Flash = u.takeFlash(w, r)
	}
	p.Tokens, p.Endpoints, p.Calendars = u.tokens != nil, u.endpoints != nil, u.calendars != nil
	var buf bytes.Buffer
	if err := u.pages.sets[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		u.log.Error("rendering a dashboard page", zap.String("page", name), zap.Error(err))
		http.Error(w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// renderFragment answers one named block of a page (the live parts).
func (u *UI) renderFragment(w http.ResponseWriter, name, block string, data any) {
	var buf bytes.Buffer
	if err := u.pages.sets[name].ExecuteTemplate(&buf, block, data); err != nil {
		u.log.Error("rendering a dashboard fragment", zap.String("block", block), zap.Error(err))
		http.Error(w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}

// fail answers an error page saying msg.
func (u *UI) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	u.render(w, r, status, "error", page{Title: http.StatusText(status), Data: errorData{Status: status, Message: msg}})
}

type errorData struct {
	Status  int
	Message string
}

func (u *UI) notFound(w http.ResponseWriter, r *http.Request) {
	u.fail(w, r, http.StatusNotFound, "There is no such page.")
}

// storeFailed answers a failure the viewer cannot fix; the detail goes to the log.
func (u *UI) storeFailed(w http.ResponseWriter, r *http.Request, err error) {
	u.log.Warn("dashboard request failed", zap.String("path", r.URL.Path), zap.Error(err))
	u.fail(w, r, http.StatusServiceUnavailable, "The store did not answer; try again in a moment.")
}

// failed answers err, if there is one, and reports whether it did: ports.ErrNotFound
// is a 404 saying notFound, anything else the store's failure.
func (u *UI) failed(w http.ResponseWriter, r *http.Request, err error, notFound string) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, ports.ErrNotFound):
		u.fail(w, r, http.StatusNotFound, notFound)
	default:
		u.storeFailed(w, r, err)
	}
	return true
}

// when renders an instant as a <time> element in UTC; the page's script shows it in
// the viewer's zone and keeps UTC on hover. A zero time is a dash.
func when(t time.Time) template.HTML {
	if t.IsZero() {
		return "—"
	}
	utc := t.UTC()
	iso := utc.Format(time.RFC3339Nano)
	text := utc.Format("2006-01-02 15:04:05 UTC")
	return template.HTML(`<time datetime="` + template.HTMLEscapeString(iso) + `" title="` +
		template.HTMLEscapeString(text) + `">` + template.HTMLEscapeString(text) + `</time>`)
}

func formatSeconds(s float64) string {
	switch {
	case s < 1:
		return strconv.FormatFloat(s*1000, 'f', 0, 64) + " ms"
	case s < 120:
		return strconv.FormatFloat(s, 'f', 1, 64) + " s"
	case s < 7200:
		return strconv.FormatFloat(s/60, 'f', 1, 64) + " min"
	default:
		return strconv.FormatFloat(s/3600, 'f', 1, 64) + " h"
	}
}

// flashCookie carries the one-line report of an action to the page the browser is sent
// to next. A cookie, not a query parameter: a link from elsewhere cannot put words in
// the dashboard's mouth.
const flashCookie = "chronos_flash"

// redirectWithFlash sends the browser to target, which will say msg once.
func (u *UI) redirectWithFlash(w http.ResponseWriter, r *http.Request, target, msg string) {
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: base64.RawURLEncoding.EncodeToString([]byte(msg)),
		Path: Prefix, MaxAge: 60, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secureCookies(u.opts.SecureCookies, r)})
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// takeFlash reads the report left by the last action, and clears it.
func (u *UI) takeFlash(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: secureCookies(u.opts.SecureCookies, r)})
	msg, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(msg) > 500 {
		return ""
	}
	return string(msg)
}

func itoa(n int) string { return strconv.Itoa(n) }

// askData is a question the server asks before a change that cannot be undone, for a
// browser without the page's script (which asks with a dialog and says so in the form).
type askData struct {
	Question, Action, Button, Back string
}

// confirmed reports whether the form says the viewer was asked; otherwise it answers
// the question page and returns false.
func (u *UI) confirmed(w http.ResponseWriter, r *http.Request, v viewer, title string, d askData) bool {
	if r.PostFormValue("confirm") == "yes" {
		return true
	}
	d.Action = r.URL.Path
	u.render(w, r, http.StatusOK, "ask", page{Title: title, Viewer: &v, Data: d})
	return false
}
