package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/chronoshq/chronos/domain"
)

// ownedHandler serves a request on behalf of owner, the principal of its bearer token.
type ownedHandler func(w http.ResponseWriter, r *http.Request, owner string)

// owned serves h as the token's owner, whatever the token's scope.
func (a *api) owned(h ownedHandler) http.Handler {
	return a.authenticated(func(w http.ResponseWriter, r *http.Request, tok domain.Token) { h(w, r, tok.Owner) })
}

// authenticated resolves the bearer token before h sees it. A request without an
// acceptable token is answered 401 and never reaches a use case, so it reads and
// writes nothing; nor does one over its token's rate (429), nor one from an address
// that failed too often (429, before its token is looked up), nor one whose path names
// an id, name or owner that nothing can have (pathVarsError).
func (a *api) authenticated(h func(w http.ResponseWriter, r *http.Request, tok domain.Token)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.authFailures != nil {
			if err := a.authFailures.Allow(r.RemoteAddr); err != nil {
				a.writeError(w, r, err)
				return
			}
		}
		plain, err := bearerToken(r.Header.Get("Authorization"))
		if err != nil {
			a.authFailed(r)
			a.writeError(w, r, err)
			return
		}
		tok, err := a.auth.Authenticate(r.Context(), plain)
		if err != nil {
			if errors.Is(err, domain.ErrUnauthenticated) {
				a.authFailed(r)
			}
			a.writeError(w, r, err) // a 401, or a 503/500 when the store failed
			return
		}
		if a.limiter != nil {
			if err := a.limiter.Allow(tok.ID); err != nil {
				a.writeError(w, r, err)
				return
			}
		}
		if err := pathVarsError(r); err != nil {
			a.writeError(w, r, err)
			return
		}
		h(w, r, tok)
	})
}

// authFailed counts a request that failed to authenticate against its address.
func (a *api) authFailed(r *http.Request) {
	if a.authFailures != nil {
		a.authFailures.Failed(r.RemoteAddr)
	}
}

// bearerToken extracts the token of an "Authorization: Bearer <token>" header
// (RFC 6750; the scheme name is case-insensitive).
func bearerToken(header string) (string, error) {
	if header == "" {
		return "", unauthenticated("missing bearer token: send Authorization: Bearer <token>")
	}
	scheme, token, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", unauthenticated("the Authorization header must use the Bearer scheme")
	}
	token = strings.TrimLeft(token, " ")
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", unauthenticated("malformed bearer token")
	}
	return token, nil
}

func unauthenticated(message string) *apiError {
	return &apiError{Status: http.StatusUnauthorized, Code: "unauthenticated", Message: message}
}
