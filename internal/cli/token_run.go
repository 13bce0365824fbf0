package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// tokenBackend is where a token subcommand runs: the API of a running server or the
// store itself. Both answer in the client's types, so both print alike.
type tokenBackend interface {
	issue(ctx context.Context, owner string, scope domain.Scope, note string) (client.IssuedToken, error)
	list(ctx context.Context, owner string) ([]client.Token, error)
	revoke(ctx context.Context, id string) error
}

// tokenOverAPI runs sub against --server with the admin token of --token.
func tokenOverAPI(ctx context.Context, sub string, f tokenFlags, stdout io.Writer) error {
	if f.api.token == "" {
		return errors.New("token: --server needs an admin token: pass --token or set CHRONOS_TOKEN " +
			"(the first one is made on the store: chronos token create --store URL --owner NAME --admin)")
	}
	// The token commands keep their own -o (revoke has none); the API session checks one.
	f.api.output = cmp.Or(f.output, "table")
	s, err := f.api.session(stdout)
	if err != nil {
		return err
	}
	return apiError(tokenCommand(ctx, sub, f, apiTokens{s.c.Admin()}, stdout))
}

// tokenOnStore runs sub on --store, migrating it first unless --no-migrate.
func tokenOnStore(ctx context.Context, sub string, f tokenFlags, wiring Wiring, stdout io.Writer) error {
	s, err := wiring.Open(ctx, f.store, !f.noMigrate)
	if err != nil {
		return err
	}
	defer s.Close()
	return tokenCommand(ctx, sub, f, storeTokens{admin.NewTokens(s, storeClock{s})}, stdout)
}

func tokenCommand(ctx context.Context, sub string, f tokenFlags, b tokenBackend, stdout io.Writer) error {
	asJSON := f.output == "json"
	switch sub {
	case "create":
		t, err := b.issue(ctx, f.owner, f.admin.scope(), f.note)
		if err != nil {
			return err
		}
		if asJSON {
			return writeTokenJSON(stdout, newTokenJSON(t.Token, t.Secret))
		}
		_, err = fmt.Fprintf(stdout, "created token %s for owner %q (scope: %s); it is shown once, store it now:\n%s\n", t.ID, t.Owner, t.Scope, t.Secret)
		return err
	case "list":
		toks, err := b.list(ctx, f.owner)
		if err != nil {
			return err
		}
		if asJSON {
			out := struct {
				Tokens []tokenJSON `json:"tokens"`
			}{make([]tokenJSON, len(toks))}
			for i, t := range toks {
				out.Tokens[i] = newTokenJSON(t, "")
			}
			return writeTokenJSON(stdout, out)
		}
		return printTokens(stdout, toks)
	default: // revoke
		err := b.revoke(ctx, f.id)
		if errors.Is(err, ports.ErrNotFound) || client.IsNotFound(err) {
			return fmt.Errorf("token revoke: no token with id %q", f.id)
		}
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "revoked token %s\n", f.id)
		return err
	}
}

func printTokens(w io.Writer, toks []client.Token) error {
	t := newTable(w)
	fmt.Fprintln(t, "ID\tOWNER\tSCOPE\tCREATED\tLAST USED\tREVOKED\tNOTE")
	for _, k := range toks {
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Owner, k.Scope, when(k.CreatedAt), when(k.LastUsedAt),
			when(k.RevokedAt), orDash(oneLine(k.Note)))
	}
	return t.Flush()
}

// tokenJSON is a token as the API writes it (null for a time not set), so -o json reads
// the same over --server and on --store.
type tokenJSON struct {
	Secret     string       `json:"token,omitempty"` // create's alone
	ID         string       `json:"id"`
	Owner      string       `json:"owner"`
	Scope      domain.Scope `json:"scope"`
	Note       string       `json:"note"`
	CreatedAt  *time.Time   `json:"created_at"`
	LastUsedAt *time.Time   `json:"last_used_at"`
	RevokedAt  *time.Time   `json:"revoked_at"`
}

func newTokenJSON(t client.Token, secret string) tokenJSON {
	at := func(x time.Time) *time.Time {
		if x.IsZero() {
			return nil
		}
		u := x.UTC()
		return &u
	}
	return tokenJSON{Secret: secret, ID: t.ID, Owner: t.Owner, Scope: t.Scope, Note: t.Note,
		CreatedAt: at(t.CreatedAt), LastUsedAt: at(t.LastUsedAt), RevokedAt: at(t.RevokedAt)}
}

func writeTokenJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// apiTokens is the API's token routes.
type apiTokens struct{ adm *client.Admin }

func (a apiTokens) issue(ctx context.Context, owner string, scope domain.Scope, note string) (client.IssuedToken, error) {
	return a.adm.CreateToken(ctx, client.CreateToken{Owner: owner, Scope: scope, Note: note})
}

func (a apiTokens) list(ctx context.Context, owner string) ([]client.Token, error) {
	return a.adm.ListTokens(ctx, owner)
}

func (a apiTokens) revoke(ctx context.Context, id string) error { return a.adm.RevokeToken(ctx, id) }

// storeTokens is the token use cases on the store itself.
type storeTokens struct{ t *admin.Tokens }

func (s storeTokens) issue(ctx context.Context, owner string, scope domain.Scope, note string) (client.IssuedToken, error) {
	plain, tok, err := s.t.Issue(ctx, owner, scope, note)
	return client.IssuedToken{Token: clientToken(tok), Secret: plain}, err
}

func (s storeTokens) list(ctx context.Context, owner string) ([]client.Token, error) {
	toks, err := s.t.List(ctx, owner)
	out := make([]client.Token, len(toks))
	for i, t := range toks {
		out[i] = clientToken(t)
	}
	return out, err
}

func (s storeTokens) revoke(ctx context.Context, id string) error { return s.t.Revoke(ctx, id) }

// clientToken is the API's view of t: no hash.
func clientToken(t domain.Token) client.Token {
	return client.Token{ID: t.ID, Owner: t.Owner, Scope: t.Scope, Note: t.Note,
		CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
}

// storeClock reads the store's clock directly; fine for one-shot commands.
type storeClock struct{ s ports.Store }

func (c storeClock) Now() time.Time {
	if t, err := c.s.Now(context.Background()); err == nil {
		return t
	}
	return time.Now().UTC()
}
