package contract

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var tokenCases = []testCase{
	{"RoundTrip", testTokenRoundTrip},
	{"ListOldestFirst", testTokenListOldestFirst},
	{"Revoke", testTokenRevoke},
	{"Unknown", testTokenUnknown},
	{"Duplicate", testTokenDuplicate},
	{"ListByOwner", testTokenListByOwner},
	{"Touch", testTokenTouch},
}

// newToken makes a token for owner created at the clock's now, with the hash of a
// random secret.
func (e *env) newToken(owner string) domain.Token {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	sum := sha256.Sum256(secret)
	return domain.Token{ID: newID(), Owner: owner, Scope: domain.ScopeOwner, Hash: hex.EncodeToString(sum[:]), CreatedAt: e.now()}
}

func (e *env) createToken(tok domain.Token) {
	e.t.Helper()
	if err := e.store.CreateToken(e.ctx, tok); err != nil {
		e.t.Fatalf("CreateToken: %v", err)
	}
}

func (e *env) tokenByHash(hash string) domain.Token {
	e.t.Helper()
	tok, err := e.store.TokenByHash(e.ctx, hash)
	if err != nil {
		e.t.Fatalf("TokenByHash: %v", err)
	}
	return tok
}

func (e *env) wantToken(what string, got, want domain.Token) {
	e.t.Helper()
	if got.ID != want.ID || got.Owner != want.Owner || got.Scope != want.Scope || got.Hash != want.Hash || got.Note != want.Note ||
		!e.sameTime(got.CreatedAt, want.CreatedAt) || !e.sameTime(got.RevokedAt, want.RevokedAt) || !e.sameTime(got.LastUsedAt, want.LastUsedAt) {
		e.t.Errorf("%s = {%s %s scope=%s %s note=%q created %s revoked %s used %s}, want {%s %s scope=%s %s note=%q created %s revoked %s used %s}", what,
			got.ID, got.Owner, got.Scope, got.Hash, got.Note, fmtTime(got.CreatedAt), fmtTime(got.RevokedAt), fmtTime(got.LastUsedAt),
			want.ID, want.Owner, want.Scope, want.Hash, want.Note, fmtTime(want.CreatedAt), fmtTime(want.RevokedAt), fmtTime(want.LastUsedAt))
	}
}

// A token is found by its hash with every field; a new one is not revoked.
func testTokenRoundTrip(t *testing.T, e *env) {
	user := e.newToken(alice)
	user.Note = "billing service, prod — ünïcode"
	admin := e.newToken("ops")
	admin.Scope = domain.ScopeAdmin
	reader := e.newToken("ops")
	reader.Scope = domain.ScopeAdminRead
	e.createToken(user)
	e.createToken(admin)
	e.createToken(reader)
	e.wantToken("user token", e.tokenByHash(user.Hash), user)
	e.wantToken("read-only admin token", e.tokenByHash(reader.Hash), reader)
	got := e.tokenByHash(admin.Hash)
	e.wantToken("admin token", got, admin)
	if got.Revoked() {
		t.Error("a new token reads as revoked")
	}
}

// ListTokens returns every token, oldest first.
func testTokenListOldestFirst(t *testing.T, e *env) {
	var want []domain.Token
	for _, owner := range []string{bob, alice, "carol"} {
		tok := e.newToken(owner)
		e.createToken(tok)
		want = append(want, tok)
		e.clock.Advance(time.Second)
	}
	e.wantTokens("ListTokens", "", want)
}

func (e *env) wantTokens(what, owner string, want []domain.Token) {
	e.t.Helper()
	got, err := e.store.ListTokens(e.ctx, owner)
	if err != nil {
		e.t.Fatalf("%s: ListTokens(%q): %v", what, owner, err)
	}
	if len(got) != len(want) {
		e.t.Fatalf("%s: ListTokens(%q): %d tokens, want %d", what, owner, len(got), len(want))
	}
	for i := range want {
		e.wantToken(what+" entry", got[i], want[i])
	}
}

// ListTokens with an owner returns that owner's tokens alone, revoked ones too, oldest
// first; an owner with none gets an empty list.
func testTokenListByOwner(t *testing.T, e *env) {
	var mine []domain.Token
	for i, owner := range []string{alice, bob, alice, alice, "alice2"} {
		tok := e.newToken(owner)
		e.createToken(tok)
		if owner == alice {
			mine = append(mine, tok)
		}
		if i == 2 {
			// Two of alice's tokens in one instant: the id orders them.
			continue
		}
		e.clock.Advance(time.Second)
	}
	if err := e.store.RevokeToken(e.ctx, mine[1].ID); err != nil {
		t.Fatal(err)
	}
	mine[1].RevokedAt = e.now()
	slices.SortFunc(mine, func(x, y domain.Token) int { return cmp.Or(x.CreatedAt.Compare(y.CreatedAt), cmp.Compare(x.ID, y.ID)) })
	e.wantTokens("ListTokens(alice)", alice, mine)
	e.wantTokens("ListTokens(nobody)", "nobody", nil)
}

// TouchToken stamps a use when none is recorded or the recorded one is before
// staleBefore; otherwise, and for an unknown id, it changes nothing.
func testTokenTouch(t *testing.T, e *env) {
	tok := e.newToken(alice)
	other := e.newToken(bob)
	e.createToken(tok)
	e.createToken(other)
	touch := func(at, staleBefore time.Time) {
		t.Helper()
		if err := e.store.TouchToken(e.ctx, tok.ID, at, staleBefore); err != nil {
			t.Fatalf("TouchToken: %v", err)
		}
	}

	first := e.now().Add(time.Minute)
	touch(first, first.Add(-time.Minute))
	want := tok
	want.LastUsedAt = first
	e.wantToken("after the first use", e.tokenByHash(tok.Hash), want)

	// A second node that read the stale stamp before the first wrote: nothing changes.
	touch(first.Add(time.Second), first.Add(-time.Minute))
	e.wantToken("after a racing use", e.tokenByHash(tok.Hash), want)

	later := first.Add(2 * time.Minute)
	touch(later, later.Add(-time.Minute))
	want.LastUsedAt = later
	e.wantToken("after a use a minute later", e.tokenByHash(tok.Hash), want)

	if err := e.store.TouchToken(e.ctx, newID(), later, later); err != nil {
		t.Errorf("TouchToken(unknown id) = %v, want nil", err)
	}
	e.wantToken("the other token", e.tokenByHash(other.Hash), other)
	e.wantTokens("ListTokens(alice) shows the use", alice, []domain.Token{want})
}

// Revoking stamps the store's now; revoking again changes nothing.
func testTokenRevoke(t *testing.T, e *env) {
	tok := e.newToken(alice)
	other := e.newToken(bob)
	e.createToken(tok)
	e.createToken(other)

	e.clock.Advance(time.Minute)
	if err := e.store.RevokeToken(e.ctx, tok.ID); err != nil {
		t.Fatalf("RevokeToken: %v", err)
	}
	want := tok
	want.RevokedAt = e.now()
	e.wantToken("after revoke", e.tokenByHash(tok.Hash), want)

	e.clock.Advance(time.Minute)
	if err := e.store.RevokeToken(e.ctx, tok.ID); err != nil {
		t.Fatalf("second RevokeToken: %v", err)
	}
	e.wantToken("after a second revoke (revoked_at unchanged)", e.tokenByHash(tok.Hash), want)
	e.wantToken("the other token", e.tokenByHash(other.Hash), other)
}

// Unknown hashes and ids are ErrNotFound.
func testTokenUnknown(t *testing.T, e *env) {
	e.createToken(e.newToken(alice))
	_, err := e.store.TokenByHash(e.ctx, e.newToken(alice).Hash)
	wantErr(t, "TokenByHash(unknown)", err, ports.ErrNotFound)
	wantErr(t, "RevokeToken(unknown)", e.store.RevokeToken(e.ctx, newID()), ports.ErrNotFound)
}

// A used hash or id is ErrConflict, and the first token is untouched.
func testTokenDuplicate(t *testing.T, e *env) {
	first := e.newToken(alice)
	e.createToken(first)

	sameHash := e.newToken(bob)
	sameHash.Hash = first.Hash
	wantErr(t, "CreateToken with a used hash", e.store.CreateToken(e.ctx, sameHash), ports.ErrConflict)

	sameID := e.newToken(bob)
	sameID.ID = first.ID
	wantErr(t, "CreateToken with a used id", e.store.CreateToken(e.ctx, sameID), ports.ErrConflict)

	e.wantToken("first token", e.tokenByHash(first.Hash), first)
	if all, err := e.store.ListTokens(e.ctx, ""); err != nil || len(all) != 1 {
		t.Errorf("ListTokens = %d tokens (%v), want 1", len(all), err)
	}
}
