package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Token is an API token as /admin/v1/tokens shows it: never its secret.
type Token struct {
	ID    string       `json:"id"`
	Owner string       `json:"owner"`
	Scope domain.Scope `json:"scope"`
	Note  string       `json:"note"` // "" for none
	// CreatedAt is when it was issued; LastUsedAt when it last authenticated a request,
	// to the minute (zero: never); RevokedAt when it was revoked (zero: it works).
	CreatedAt  time.Time `json:"created_at"`
	LastUsedAt time.Time `json:"last_used_at"`
	RevokedAt  time.Time `json:"revoked_at"`
}

// Revoked reports whether the token no longer works.
func (t Token) Revoked() bool { return !t.RevokedAt.IsZero() }

// IssuedToken is a token just issued, with its secret: the only answer that carries it.
type IssuedToken struct {
	Token
	// Secret is the bearer token ("chr_..."), for New or CHRONOS_TOKEN. Store it now:
	// the server keeps only its hash.
	Secret string `json:"token"`
}

// CreateToken is what to issue a token for.
type CreateToken struct {
	Owner string       // required: whom the token acts for
	Scope domain.Scope // "" is domain.ScopeOwner
	Note  string       // what it is for; at most 200 characters
}

// CreateToken issues a token (POST /admin/v1/tokens). It needs a token of scope admin;
// admin:read and owner tokens are forbidden (IsForbidden). A refused field is invalid
// (IsInvalid, Error.Field names it).
func (a *Admin) CreateToken(ctx context.Context, req CreateToken) (IssuedToken, error) {
	if req.Owner == "" {
		return IssuedToken{}, errNoOwner
	}
	body, err := marshal(struct {
		Owner string       `json:"owner"`
		Scope domain.Scope `json:"scope,omitempty"`
		Note  string       `json:"note,omitempty"`
	}{req.Owner, req.Scope, req.Note})
	if err != nil {
		return IssuedToken{}, err
	}
	var out IssuedToken
	err = a.c.do(ctx, call{method: http.MethodPost, path: adminTokens, body: body}, &out)
	return out, err
}

// ListTokens returns owner's tokens, or every token when owner is "", oldest first,
// revoked ones included (GET /admin/v1/tokens).
func (a *Admin) ListTokens(ctx context.Context, owner string) ([]Token, error) {
	q := url.Values{}
	if owner != "" {
		q.Set("owner", owner)
	}
	var out struct {
		Tokens []Token `json:"tokens"`
	}
	err := a.c.do(ctx, call{method: http.MethodGet, path: adminTokens, query: q}, &out)
	return out.Tokens, err
}

// RevokeToken revokes the token with this id (DELETE /admin/v1/tokens/{id}); revoking
// a revoked token is fine, an unknown id is not_found (IsNotFound). Other nodes may
// accept the token for up to a second more (the server's token cache).
func (a *Admin) RevokeToken(ctx context.Context, id string) error {
	if id == "" {
		return errNoTokenID
	}
	return a.c.do(ctx, call{method: http.MethodDelete, path: adminTokens + "/" + url.PathEscape(id)}, nil)
}

const adminTokens = "/admin/v1/tokens"

var errNoTokenID = errors.New("client: a token id is required")
