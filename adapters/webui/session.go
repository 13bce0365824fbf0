package webui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// cookieName is the session cookie; scoped to Prefix.
const cookieName = "chronos_session"

// State names (ports.StateStore) the sessions use. The key signs every cookie; a
// signed-out session is remembered under its id until it would have expired anyway.
const (
	sessionKeyName   = "ui-session-key"
	signedOutPrefix  = "ui-signed-out/"
	sessionKeyLength = 32
)

// session is what a cookie carries, signed: the hash of the admin token it was opened
// with (never the token), an id of its own and when it ends.
type session struct {
	TokenHash string `json:"h"`
	ID        string `json:"sid"`
	Expires   int64  `json:"exp"` // unix seconds
}

var errNoSession = errors.New("webui: no valid session")

// sessions issues and checks session cookies. The signing key lives in the store, so
// a cookie made by one node is good on every node, and a restart keeps sessions.
type sessions struct {
	state ports.StateStore
	ttl   time.Duration
	now   func() time.Time

	mu  sync.Mutex
	key []byte
}

func newSessions(state ports.StateStore, ttl time.Duration, now func() time.Time) *sessions {
	return &sessions{state: state, ttl: ttl, now: now}
}

// signingKey loads the cluster's key, making one on first use. Two nodes making one at
// once both read back whichever write landed last, so they agree from then on.
func (s *sessions) signingKey(ctx context.Context) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key != nil {
		return s.key, nil
	}
	st, ok, err := s.state.GetState(ctx, sessionKeyName)
	if err != nil {
		return nil, err
	}
	if !ok {
		fresh := make([]byte, sessionKeyLength)
		_, _ = rand.Read(fresh)
		if err := s.state.PutState(ctx, sessionKeyName, hex.EncodeToString(fresh)); err != nil {
			return nil, err
		}
		if st, ok, err = s.state.GetState(ctx, sessionKeyName); err != nil || !ok {
			return nil, errors.Join(errors.New("webui: the session key did not stick"), err)
		}
	}
	key, err := hex.DecodeString(st.Value)
	if err != nil || len(key) != sessionKeyLength {
		return nil, errors.New("webui: the stored session key is malformed")
	}
	s.key = key
	return key, nil
}

func sign(key []byte, parts ...string) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

// issue starts a session for the token with this hash and sets its cookie.
func (s *sessions) issue(ctx context.Context, w http.ResponseWriter, r *http.Request, tokenHash string) error {
	key, err := s.signingKey(ctx)
	if err != nil {
		return err
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	sess := session{TokenHash: tokenHash, ID: hex.EncodeToString(id), Expires: s.now().Add(s.ttl).Unix()}
	body, _ := json.Marshal(sess)
	payload := base64.RawURLEncoding.EncodeToString(body)
	value := payload + "." + base64.RawURLEncoding.EncodeToString(sign(key, "session", payload))
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: value, Path: Prefix, MaxAge: int(s.ttl.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
	return nil
}

// read returns the request's session when its cookie is signed with the cluster's key,
// unexpired and not signed out.
func (s *sessions) read(r *http.Request) (session, error) {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return session{}, errNoSession
	}
	payload, mac, ok := strings.Cut(c.Value, ".")
	if !ok {
		return session{}, errNoSession
	}
	key, err := s.signingKey(r.Context())
	if err != nil {
		return session{}, err
	}
	got, err := base64.RawURLEncoding.DecodeString(mac)
	if err != nil || !hmac.Equal(got, sign(key, "session", payload)) {
		return session{}, errNoSession
	}
	body, err := base64.RawURLEncoding.DecodeString(payload)
	var sess session
	if err != nil || json.Unmarshal(body, &sess) != nil || sess.ID == "" || sess.TokenHash == "" {
		return session{}, errNoSession
	}
	if s.now().Unix() >= sess.Expires {
		return session{}, errNoSession
	}
	_, out, err := s.state.GetState(r.Context(), signedOutPrefix+sess.ID)
	if err != nil {
		return session{}, err
	}
	if out {
		return session{}, errNoSession
	}
	return sess, nil
}

// end signs the session out on every node and clears its cookie.
func (s *sessions) end(ctx context.Context, w http.ResponseWriter, r *http.Request, sess session) error {
	clear := &http.Cookie{Name: cookieName, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil}
	http.SetCookie(w, clear)
	return s.state.PutState(ctx, signedOutPrefix+sess.ID, strconv.FormatInt(sess.Expires, 10))
}

// csrf is the session's CSRF token: every form that changes something carries it, and
// a page of another site cannot know it.
func (s *sessions) csrf(ctx context.Context, sess session) string {
	key, err := s.signingKey(ctx)
	if err != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(sign(key, "csrf", sess.ID))
}

// checkCSRF reports whether the form's token is the session's.
func (s *sessions) checkCSRF(r *http.Request, sess session) bool {
	want := s.csrf(r.Context(), sess)
	got := r.PostFormValue("csrf")
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
