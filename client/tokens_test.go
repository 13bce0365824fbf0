package client_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
)

// The token methods against the real server: the secret comes back once and works, the
// list carries none, revoke stops the token, and the scopes hold.
func TestClientTokensAgainstTheRealServer(t *testing.T) {
	s := newRealServer(t)
	ctx := t.Context()
	adm, read := s.ops.Admin(), s.reader.Admin()

	issued, err := adm.CreateToken(ctx, client.CreateToken{Owner: "billing", Note: "billing service"})
	if err != nil || !strings.HasPrefix(issued.Secret, "chr_") || issued.ID == "" || issued.Owner != "billing" ||
		issued.Scope != domain.ScopeOwner || issued.Note != "billing service" || issued.CreatedAt.IsZero() ||
		!issued.LastUsedAt.IsZero() || issued.Revoked() {
		t.Fatalf("CreateToken = %+v, %v", issued, err)
	}
	billing, err := client.New(s.srv.URL, issued.Secret, client.WithHTTPClient(s.srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := billing.ListMyEndpoints(ctx); err != nil {
		t.Fatalf("the issued token: %v", err)
	}

	list, err := read.ListTokens(ctx, "billing")
	if err != nil || len(list) != 1 || list[0].ID != issued.ID || list[0].Note != "billing service" {
		t.Fatalf("ListTokens(billing) = %+v, %v", list, err)
	}
	if all, err := read.ListTokens(ctx, ""); err != nil || len(all) != 5 {
		t.Errorf("ListTokens() = %d tokens, %v; want the server's 4 and billing's", len(all), err)
	}

	if _, err := read.CreateToken(ctx, client.CreateToken{Owner: "x", Scope: domain.ScopeAdmin}); !client.IsForbidden(err) {
		t.Errorf("admin:read CreateToken: %v, want forbidden", err)
	}
	if err := read.RevokeToken(ctx, issued.ID); !client.IsForbidden(err) {
		t.Errorf("admin:read RevokeToken: %v, want forbidden", err)
	}
	if _, err := s.alice.Admin().ListTokens(ctx, ""); !client.IsForbidden(err) {
		t.Errorf("owner ListTokens: %v, want forbidden", err)
	}
	_, err = adm.CreateToken(ctx, client.CreateToken{Owner: "x", Scope: "root"})
	var e *client.Error
	if !client.IsInvalid(err) || !errors.As(err, &e) || e.Field != "scope" {
		t.Errorf("CreateToken with scope root: %v, want invalid naming scope", err)
	}

	if err := adm.RevokeToken(ctx, issued.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := billing.ListMyEndpoints(ctx); !client.IsUnauthenticated(err) {
		t.Errorf("the revoked token: %v, want unauthenticated", err)
	}
	if list, err = read.ListTokens(ctx, "billing"); err != nil || len(list) != 1 || !list[0].Revoked() {
		t.Errorf("after revoking: %+v, %v", list, err)
	}
	if err := adm.RevokeToken(ctx, "tok_nosuchtoken"); !client.IsNotFound(err) {
		t.Errorf("RevokeToken(unknown) = %v, want not_found", err)
	}
}
