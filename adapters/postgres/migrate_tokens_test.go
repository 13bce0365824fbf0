package postgres

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Migration 00010 upgrades tokens in use: they read with no note and never used, and
// are listed by owner; Down drops the two columns and the index and keeps the rows.
func TestMigrationTokenNoteAndLastUse(t *testing.T) {
	ctx := t.Context()
	u, db, p := migratedSchema(t, 9)
	created := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	if _, err := db.ExecContext(ctx, `INSERT INTO api_tokens (id, owner, admin, scope, hash, created_at)
		VALUES ('t-old', 'alice', false, 'owner', 'h-old', $1)`, created); err != nil {
		t.Fatal(err)
	}

	s := openStore(t, u, Options{Migrate: true})
	tok, err := s.TokenByHash(ctx, "h-old")
	if err != nil || tok.ID != "t-old" || tok.Note != "" || !tok.LastUsedAt.IsZero() || !tok.CreatedAt.Equal(created) {
		t.Fatalf("the old token after the upgrade: %+v, %v", tok, err)
	}
	used := created.Add(time.Minute)
	if err := s.TouchToken(ctx, "t-old", used, used.Add(-domain.TokenUseResolution)); err != nil {
		t.Fatal(err)
	}
	if toks, err := s.ListTokens(ctx, "alice"); err != nil || len(toks) != 1 || !toks[0].LastUsedAt.Equal(used) {
		t.Errorf("ListTokens(alice) = %+v, %v; want the old token, used at %s", toks, err, used)
	}
	s.Close()

	if _, err := p.DownTo(ctx, 9); err != nil {
		t.Fatalf("migrate down to 00009: %v", err)
	}
	var owner string
	if err := db.QueryRowContext(ctx, `SELECT owner FROM api_tokens WHERE id = 't-old'`).Scan(&owner); err != nil || owner != "alice" {
		t.Errorf("after Down: token t-old owner %q, %v", owner, err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'api_tokens' AND column_name IN ('note', 'last_used_at')`).Scan(&n); err != nil || n != 0 {
		t.Errorf("after Down: %d of the new columns left (%v)", n, err)
	}
}
