package httpapi

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"
	"go.uber.org/zap"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/adapters/internal/operator"
	"github.com/chronoshq/chronos/adapters/internal/pathvar"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Tokens is the set of token use cases the admin API drives (*admin.Tokens), declared
// once for it and the dashboard in internal/operator.
type Tokens = operator.Tokens

// tokenRequest is the body of POST /admin/v1/tokens. Scope "" is "owner".
type tokenRequest struct {
	Owner string       `json:"owner"`
	Scope domain.Scope `json:"scope"`
	Note  string       `json:"note"`
}

// tokenView is a token as the admin API shows it: never its secret, nor its hash (a
// hash of a 256-bit secret gives nothing away, but a list that carries none cannot leak
// one into a ticket or a log either).
type tokenView struct {
	ID         string       `json:"id"`
	Owner      string       `json:"owner"`
	Scope      domain.Scope `json:"scope"`
	Note       string       `json:"note"`
	CreatedAt  jsonio.Time  `json:"created_at"`
	LastUsedAt jsonio.Time  `json:"last_used_at"`
	RevokedAt  jsonio.Time  `json:"revoked_at"`
}

func newTokenView(t domain.Token) tokenView {
	return tokenView{ID: t.ID, Owner: t.Owner, Scope: t.Scope, Note: t.Note,
		CreatedAt: jsonio.Time(t.CreatedAt), LastUsedAt: jsonio.Time(t.LastUsedAt), RevokedAt: jsonio.Time(t.RevokedAt)}
}

// issuedTokenView is the answer to POST /admin/v1/tokens: the view plus the secret,
// which no other answer carries.
type issuedTokenView struct {
	Token string `json:"token"`
	tokenView
}

var errNoToken = &apiError{Status: http.StatusNotFound, Code: "not_found", Message: "no token has this id"}

// adminCreateToken serves POST /admin/v1/tokens (scope admin): 201 with the secret.
func (a *api) adminCreateToken(w http.ResponseWriter, r *http.Request, by domain.Token) {
	var req tokenRequest
	if !a.readObject(w, r, &req) {
		return
	}
	plain, tok, err := a.tokens.Issue(r.Context(), req.Owner, req.Scope, req.Note)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.log.Info("admin issued a token", requestFields(r, zap.String("token", tok.ID), zap.String("owner", tok.Owner),
		zap.String("scope", string(tok.Scope)), zap.String("by", by.ID))...)
	w.Header().Set("Cache-Control", "no-store") // the body holds a credential
	writeJSON(w, http.StatusCreated, issuedTokenView{Token: plain, tokenView: newTokenView(tok)})
}

// adminListTokens serves GET /admin/v1/tokens[?owner=]: oldest first, revoked ones
// included.
func (a *api) adminListTokens(w http.ResponseWriter, r *http.Request, _ domain.Token) {
	owner := r.URL.Query().Get("owner")
	if owner != "" && (len(owner) > maxOwnerLen || !pathvar.Printable(owner)) {
		a.writeError(w, r, invalidArgument("owner", "must be an owner a token can have: 1 to 200 bytes of UTF-8 without control characters"))
		return
	}
	toks, err := a.tokens.List(r.Context(), owner)
	a.answer(w, r, err, "tokens", views(toks, newTokenView))
}

// adminRevokeToken serves DELETE /admin/v1/tokens/{id} (scope admin): 204, again for a
// token already revoked.
func (a *api) adminRevokeToken(w http.ResponseWriter, r *http.Request, by domain.Token) {
	id := mux.Vars(r)["id"]
	if !pathvar.Valid(id) {
		a.writeError(w, r, errNoToken)
		return
	}
	err := a.tokens.Revoke(r.Context(), id)
	if errors.Is(err, ports.ErrNotFound) {
		err = errNoToken
	}
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.log.Info("admin revoked a token", requestFields(r, zap.String("token", id), zap.String("by", by.ID))...)
	w.WriteHeader(http.StatusNoContent)
}

// tokenRoutes adds the /admin/v1/tokens routes to r; without Tokens they are not served.
func (a *api) tokenRoutes(r *mux.Router) {
	if a.tokens == nil {
		return
	}
	r.Handle("/admin/v1/tokens", a.adminRead(a.adminListTokens)).Methods(http.MethodGet)
	r.Handle("/admin/v1/tokens", a.adminChange(a.adminCreateToken)).Methods(http.MethodPost)
	r.Handle("/admin/v1/tokens/{id}", a.adminChange(a.adminRevokeToken)).Methods(http.MethodDelete)
}
