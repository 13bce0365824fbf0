package mysql

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Migration 00009 upgrades tokens in use: they read with no note and never used, and
// are listed by owner; Down drops the two columns and the index and keeps the rows.
func TestMigrationTokenNoteAndLastUse(t *testing.T) {
	ctx := t.Context()
	u, db, p := migratedTo(t, 8)
	at := micro(testNow)
	mustExec(t, db, `INSERT INTO api_tokens (id, owner, admin, scope, hash, created_at) VALUES ('t-old', 'alice', FALSE, 'owner', 'h-old', ?)`, at)
	if err := Migrate(ctx, u); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	s, err := Open(ctx, u, Options{Clock: fixedClock(testNow)})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	tok, err := s.TokenByHash(ctx, "h-old")
	if err != nil || tok.ID != "t-old" || tok.Note != "" || !tok.LastUsedAt.IsZero() || !tok.CreatedAt.Equal(at) {
		t.Fatalf("the old token after the upgrade: %+v, %v", tok, err)
	}
	used := at.Add(time.Minute)
	if err := s.TouchToken(ctx, "t-old", used, used.Add(-domain.TokenUseResolution)); err != nil {
		t.Fatal(err)
	}
	if toks, err := s.ListTokens(ctx, "alice"); err != nil || len(toks) != 1 || !toks[0].LastUsedAt.Equal(used) {
		t.Errorf("ListTokens(alice) = %+v, %v; want the old token, used at %s", toks, err, used)
	}
	s.Close()

	if _, err := p.DownTo(ctx, 8); err != nil {
		t.Fatalf("migrate down to 8: %v", err)
	}
	var owner string
	if err := db.QueryRowContext(ctx, `SELECT owner FROM api_tokens WHERE id = 't-old'`).Scan(&owner); err != nil || owner != "alice" {
		t.Errorf("after Down: token t-old owner %q, %v", owner, err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.columns
		WHERE table_schema = DATABASE() AND table_name = 'api_tokens' AND column_name IN ('note', 'last_used_at')`).Scan(&n); err != nil || n != 0 {
		t.Errorf("after Down: %d of the new columns left (%v)", n, err)
	}
}
