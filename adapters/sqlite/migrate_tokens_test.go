package sqlite

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Migration 00009 upgrades tokens in use: they read with no note and never used, and
// are listed by owner; Down drops the two columns and the index and keeps the rows.
func TestMigrateTokenNoteAndLastUse(t *testing.T) {
	ctx := t.Context()
	path, db, p := migratedFile(t, 8)
	if _, err := db.ExecContext(ctx, `INSERT INTO api_tokens (id, owner, admin, scope, hash, created_at)
		VALUES ('t-old', 'alice', 0, 'owner', 'h-old', 1000)`); err != nil {
		t.Fatal(err)
	}

	s, err := Open(ctx, "sqlite://"+path, Options{Migrate: true})
	if err != nil {
		t.Fatalf("Open (migrating to the latest): %v", err)
	}
	tok, err := s.TokenByHash(ctx, "h-old")
	if err != nil || tok.ID != "t-old" || tok.Note != "" || !tok.LastUsedAt.IsZero() || !tok.CreatedAt.Equal(time.UnixMilli(1000).UTC()) {
		t.Fatalf("the old token after the upgrade: %+v, %v", tok, err)
	}
	used := time.UnixMilli(5000).UTC()
	if err := s.TouchToken(ctx, "t-old", used, used.Add(-domain.TokenUseResolution)); err != nil {
		t.Fatal(err)
	}
	if toks, err := s.ListTokens(ctx, "alice"); err != nil || len(toks) != 1 || !toks[0].LastUsedAt.Equal(used) {
		t.Errorf("ListTokens(alice) = %+v, %v; want the old token, used at %s", toks, err, used)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	if _, err := p.DownTo(ctx, 8); err != nil {
		t.Fatalf("migrate down to 8: %v", err)
	}
	var owner string
	if err := db.QueryRowContext(ctx, `SELECT owner FROM api_tokens WHERE id = 't-old'`).Scan(&owner); err != nil || owner != "alice" {
		t.Errorf("after Down: token t-old owner %q, %v", owner, err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('api_tokens') WHERE name IN ('note', 'last_used_at')`).Scan(&n); err != nil || n != 0 {
		t.Errorf("after Down: %d of the new columns left (%v)", n, err)
	}
}
