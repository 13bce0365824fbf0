package webui

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/chronoshq/chronos/adapters/internal/pathvar"
	"github.com/chronoshq/chronos/domain"
)

// viewer is who looks at a page: the session and its admin token.
type viewer struct {
	Session session
	Token   domain.Token
	CSRF    string // the session's CSRF token, for the page's forms
}

// CanChange reports whether the viewer may change things (scope admin, not admin:read).
func (v viewer) CanChange() bool { return v.Token.CanChangeAdmin() }

type viewHandler func(w http.ResponseWriter, r *http.Request, v viewer)

// reading serves h to a signed-in admin (either scope); anyone else is sent to sign in.
func (u *UI) reading(h viewHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, ok := u.viewer(w, r)
		if ok && u.pathNamesSomething(w, r) {
			h(w, r, v)
		}
	})
}

// pathNamesSomething answers 404 to a path whose {id} no alarm or token can have (see
// pathvar) and returns false; the store never sees such bytes.
func (u *UI) pathNamesSomething(w http.ResponseWriter, r *http.Request) bool {
	for _, v := range mux.Vars(r) {
		if !pathvar.Valid(v) {
			u.notFound(w, r)
			return false
		}
	}
	return true
}

// posting serves a form post of a signed-in admin that carries the session's CSRF token
// and comes from this site.
func (u *UI) posting(h viewHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sameOrigin(r) {
			u.fail(w, r, http.StatusForbidden, "This form came from another site; it was refused.")
			return
		}
		v, ok := u.viewer(w, r)
		if !ok {
			return
		}
		if !u.sessions.checkCSRF(r, v.Session) {
			u.fail(w, r, http.StatusForbidden, "The form's security token is missing or out of date (CSRF). Reload the page and try again.")
			return
		}
		if u.pathNamesSomething(w, r) {
			h(w, r, v)
		}
	})
}

// changing is posting for an admin token that may change things; an admin:read session
// gets a 403 even if it forges the form.
func (u *UI) changing(h viewHandler) http.Handler {
	return u.posting(func(w http.ResponseWriter, r *http.Request, v viewer) {
		if !v.CanChange() {
			u.fail(w, r, http.StatusForbidden, "This session is read-only (admin:read): it cannot change anything.")
			return
		}
		h(w, r, v)
	})
}

// viewer resolves the request's session, answering (a redirect to sign in, an error
// page) and returning false when there is none.
func (u *UI) viewer(w http.ResponseWriter, r *http.Request) (viewer, bool) {
	_, cookieErr := r.Cookie(cookieName)
	hasCookie := cookieErr == nil
	if hasCookie && !u.allowAuth(w, r) {
		return viewer{}, false
	}
	sess, err := u.sessions.read(r)
	if errors.Is(err, errNoSession) {
		if hasCookie { // a cookie the store does not know, or one expired
			u.authFailed(r)
		}
		u.toLogin(w, r)
		return viewer{}, false
	}
	if err != nil {
		u.storeFailed(w, r, err)
		return viewer{}, false
	}
	tok, err := u.auth.AuthenticateHash(r.Context(), sess.TokenHash)
	if errors.Is(err, domain.ErrUnauthenticated) || (err == nil && !tok.CanReadAdmin()) {
		u.toLogin(w, r) // the token was revoked: so is the session
		return viewer{}, false
	}
	if err != nil {
		u.storeFailed(w, r, err)
		return viewer{}, false
	}
	return viewer{Session: sess, Token: tok, CSRF: u.sessions.csrf(sess)}, true
}

// allowAuth answers 429, with Retry-After, the sign-in page saying why, and returns
// false when the request's address has failed to authenticate too often.
func (u *UI) allowAuth(w http.ResponseWriter, r *http.Request) bool {
	if u.opts.AuthFailures == nil {
		return true
	}
	err := u.opts.AuthFailures.Allow(r.RemoteAddr)
	var le *domain.LimitError
	if !errors.As(err, &le) {
		return true
	}
	secs := int64((le.RetryAfter + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
	u.render(w, r, http.StatusTooManyRequests, "login", page{Title: "Sign in", Data: loginData{
		Next: r.PostFormValue("next"), Error: "Too many failed sign-ins from your address: try again in " + strconv.FormatInt(max(secs, 1), 10) + " s."}})
	return false
}

// authFailed counts a failed sign-in, or an unknown session, against its address.
func (u *UI) authFailed(r *http.Request) {
	if u.opts.AuthFailures != nil {
		u.opts.AuthFailures.Failed(r.RemoteAddr)
	}
}

// toLogin sends the browser to sign in, coming back here after (for a page read).
func (u *UI) toLogin(w http.ResponseWriter, r *http.Request) {
	target := Prefix + "login"
	if r.Method == http.MethodGet && r.URL.Path != Prefix {
		target += "?next=" + url.QueryEscape(r.URL.RequestURI())
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// sameOrigin refuses a post whose Origin (sent by every current browser on a POST)
// names another site, or is "null" (an opaque origin: a sandboxed frame, a data: page).
// Our own pages send their real origin because withSecurityHeaders sets
// Referrer-Policy same-origin. SameSite=Strict already keeps the cookie off such posts;
// this covers the sign-in form, which has no session yet.
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		return origin == ""
	}
	o, err := url.Parse(origin)
	return err == nil && strings.EqualFold(o.Host, r.Host)
}

// safeNext keeps a post-sign-in destination inside the dashboard.
func safeNext(next string) string {
	if strings.HasPrefix(next, Prefix) && !strings.HasPrefix(next, Prefix+"/") && !strings.Contains(next, "\\") {
		return next
	}
	return Prefix
}

// loginPage serves the sign-in form.
func (u *UI) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, err := u.sessions.read(r); err == nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	u.render(w, r, http.StatusOK, "login", page{Title: "Sign in", Data: loginData{Next: r.URL.Query().Get("next")}})
}

type loginData struct {
	Next  string
	Error string
}

// login exchanges an admin token for a session.
func (u *UI) login(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		u.fail(w, r, http.StatusForbidden, "This form came from another site; it was refused.")
		return
	}
	next := r.PostFormValue("next")
	refuse := func(status int, msg string) {
		u.render(w, r, status, "login", page{Title: "Sign in", Data: loginData{Next: next, Error: msg}})
	}
	if !u.allowAuth(w, r) {
		return
	}
	tok, err := u.auth.Authenticate(r.Context(), strings.TrimSpace(r.PostFormValue("token")))
	switch {
	case errors.Is(err, domain.ErrUnauthenticated):
		u.authFailed(r)
		refuse(http.StatusUnauthorized, "Unknown or revoked token.")
		return
	case err != nil:
		u.storeFailed(w, r, err)
		return
	case !tok.CanReadAdmin():
		refuse(http.StatusForbidden, "This is an owner token. The dashboard needs an admin token: chronos token create --owner NAME --admin (or --admin read).")
		return
	}
	if err := u.sessions.issue(r.Context(), w, r, tok.Hash); err != nil {
		u.storeFailed(w, r, err)
		return
	}
	http.Redirect(w, r, safeNext(next), http.StatusSeeOther)
}

// logout ends the session on every node.
func (u *UI) logout(w http.ResponseWriter, r *http.Request, v viewer) {
	if err := u.sessions.end(r.Context(), w, r, v.Session); err != nil {
		u.storeFailed(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"login", http.StatusSeeOther)
}
