package webui

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"
	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
)

type tokensData struct {
	Owner  string // the filter
	Tokens []domain.Token
	Scopes []domain.Scope
	// Issued is the token just made, with its secret: shown on this answer alone.
	Issued       *domain.Token
	IssuedSecret string
	// Form is what the create form shows again after a refusal, and Error why.
	Form  issueForm
	Error string
}

type issueForm struct {
	Owner, Note string
	Scope       domain.Scope
}

var tokenScopes = []domain.Scope{domain.ScopeOwner, domain.ScopeAdminRead, domain.ScopeAdmin}

// tokensPage lists the tokens, one owner's with ?owner=.
func (u *UI) tokensPage(w http.ResponseWriter, r *http.Request, v viewer) {
	u.renderTokens(w, r, v, http.StatusOK, tokensData{Owner: strings.TrimSpace(r.URL.Query().Get("owner"))})
}

func (u *UI) renderTokens(w http.ResponseWriter, r *http.Request, v viewer, status int, d tokensData) {
	toks, err := u.tokens.List(r.Context(), d.Owner)
	if err != nil {
		u.storeFailed(w, r, err)
		return
	}
	d.Tokens, d.Scopes = toks, tokenScopes
	if d.Form.Scope == "" {
		d.Form.Scope = domain.ScopeOwner
	}
	u.render(w, r, status, "tokens", page{Title: "Tokens", Nav: "tokens", Viewer: &v, Data: d})
}

// issueToken makes a token and shows its secret once, on the answer to the post: it
// is never stored, nor put in a redirect or a cookie.
func (u *UI) issueToken(w http.ResponseWriter, r *http.Request, v viewer) {
	form := issueForm{Owner: r.PostFormValue("owner"), Note: r.PostFormValue("note"), Scope: domain.Scope(r.PostFormValue("scope"))}
	plain, tok, err := u.tokens.Issue(r.Context(), form.Owner, form.Scope, form.Note)
	var msg string
	switch {
	case isInvalid(err, &msg):
		u.renderTokens(w, r, v, http.StatusBadRequest, tokensData{Form: form, Error: msg})
		return
	case err != nil:
		u.storeFailed(w, r, err)
		return
	}
	u.log.Info("dashboard issued a token", zap.String("token", tok.ID), zap.String("owner", tok.Owner),
		zap.String("scope", string(tok.Scope)), zap.String("by", v.Token.ID))
	u.renderTokens(w, r, v, http.StatusOK, tokensData{Issued: &tok, IssuedSecret: plain})
}

// revokeToken revokes a token, after asking.
func (u *UI) revokeToken(w http.ResponseWriter, r *http.Request, v viewer) {
	id := mux.Vars(r)["id"]
	question := "Revoke token " + id + "? Requests made with it, and dashboard sessions opened with it, are refused from now on (within a second on the other nodes)."
	if id == v.Token.ID {
		question = "Revoke token " + id + ", the one this session was opened with? You will be signed out."
	}
	if !u.confirmed(w, r, v, "Revoke token", askData{Question: question, Button: "Yes, revoke it", Back: Prefix + "tokens"}) {
		return
	}
	err := u.tokens.Revoke(r.Context(), id)
	if u.failed(w, r, err, "There is no token "+id+".") {
		return
	}
	u.log.Info("dashboard revoked a token", zap.String("token", id), zap.String("by", v.Token.ID))
	u.redirectWithFlash(w, r, Prefix+"tokens", "Token "+id+" revoked.")
}
