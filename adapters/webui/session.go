package webui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// cookieName is the session cookie; scoped to Prefix.
const cookieName = "chronos_session"

// sessionIDBytes is the entropy of a session id; sweepBatch the most expired sessions
// one sign-in deletes.
const (
	sessionIDBytes = 32
	sweepBatch     = 100
)

// session is one signed-in browser. ID is the cookie's value, a random id that exists
// only there: the store keeps its SHA-256, so a copy of the database cannot be turned
// into a cookie (docs/security.md, M2).
type session struct {
	ID        string // base64url of sessionIDBytes random bytes
	TokenHash string // the admin token it was opened with, checked on every request
	Expires   time.Time
}

var errNoSession = errors.New("webui: no valid session")

// sessions issues and checks session cookies against the store, so a cookie made by
// one node is good on every node, survives a restart, and a sign-out ends it everywhere.
type sessions struct {
	store  ports.SessionStore
	ttl    time.Duration
	now    func() time.Time
	secure bool // every cookie Secure: the dashboard is reached over HTTPS (a proxy's)
}

func newSessions(store ports.SessionStore, ttl time.Duration, now func() time.Time, secure bool) *sessions {
	return &sessions{store: store, ttl: ttl, now: now, secure: secure}
}

// hashID is what the store keeps of a session id.
func hashID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// cookie is the session cookie with value and lifetime; Secure when the dashboard is
// served over HTTPS, here (r.TLS) or by a proxy in front (Options.SecureCookies).
func (s *sessions) cookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: cookieName, Value: value, Path: Prefix, MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secureCookies(s.secure, r)}
}

// secureCookies reports whether the dashboard's cookies are Secure on the answer to r:
// when it came over TLS, and always when the dashboard is reached through an HTTPS
// proxy (always: Options.SecureCookies, serve --public-url https://...).
func secureCookies(always bool, r *http.Request) bool { return always || r.TLS != nil }

// issue starts a session for the token with this hash and sets its cookie. It first
// deletes a batch of expired sessions: rows are only ever added here, so sweeping here
// keeps the table to the sessions of the last TTL, with no loop of its own.
func (s *sessions) issue(ctx context.Context, w http.ResponseWriter, r *http.Request, tokenHash string) error {
	now := s.now()
	if _, err := s.store.DeleteExpiredSessions(ctx, now, sweepBatch); err != nil {
		return err
	}
	raw := make([]byte, sessionIDBytes)
	_, _ = rand.Read(raw) // never fails (crypto/rand)
	id := base64.RawURLEncoding.EncodeToString(raw)
	err := s.store.CreateSession(ctx, ports.Session{Hash: hashID(id), TokenHash: tokenHash,
		CreatedAt: now, ExpiresAt: now.Add(s.ttl)})
	if err != nil {
		return err
	}
	http.SetCookie(w, s.cookie(r, id, int(s.ttl.Seconds())))
	return nil
}

// read returns the request's session when its cookie names a stored, unexpired one.
func (s *sessions) read(r *http.Request) (session, error) {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return session{}, errNoSession
	}
	if raw, err := base64.RawURLEncoding.DecodeString(c.Value); err != nil || len(raw) != sessionIDBytes {
		return session{}, errNoSession // not one of ours: no need to ask the store
	}
	st, err := s.store.SessionByHash(r.Context(), hashID(c.Value))
	if errors.Is(err, ports.ErrNotFound) {
		return session{}, errNoSession
	}
	if err != nil {
		return session{}, err
	}
	if !s.now().Before(st.ExpiresAt) {
		return session{}, errNoSession
	}
	return session{ID: c.Value, TokenHash: st.TokenHash, Expires: st.ExpiresAt}, nil
}

// end signs the session out on every node and clears its cookie.
func (s *sessions) end(ctx context.Context, w http.ResponseWriter, r *http.Request, sess session) error {
	http.SetCookie(w, s.cookie(r, "", -1))
	return s.store.DeleteSession(ctx, hashID(sess.ID))
}

// csrf is the session's CSRF token: every form that changes something carries it. It
// is derived from the session id, which only the browser holds: a page of another site
// cannot know it, and neither can a reader of the database (it holds the id's hash).
func (s *sessions) csrf(sess session) string {
	m := hmac.New(sha256.New, []byte(sess.ID))
	m.Write([]byte("csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkCSRF reports whether the form's token is the session's.
func (s *sessions) checkCSRF(r *http.Request, sess session) bool {
	want := s.csrf(sess)
	got := r.PostFormValue("csrf")
	return sess.ID != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
