package sqlite

import (
	"database/sql"
	"reflect"
	"testing"

	"github.com/chronoshq/chronos/domain"
)

// Migration 00004 upgrades a database in use: tokens of the old admin flag read with
// the scope it meant, workers registered before stats read as zero stats, and new
// tokens still write the old flag. Down gives an older binary back only the full
// admins as admins: a read-only admin token must not come back as one that may change
// things.
func TestMigrateAdminScopes(t *testing.T) {
	ctx := t.Context()
	path, db, p := migratedFile(t, 3)
	for _, q := range []string{
		`INSERT INTO api_tokens (id, owner, admin, hash, created_at) VALUES ('t-admin', 'ops', 1, 'h-admin', 1)`,
		`INSERT INTO api_tokens (id, owner, admin, hash, created_at) VALUES ('t-owner', 'alice', 0, 'h-owner', 2)`,
		`INSERT INTO workers (id, host, pid, started_at, heartbeat_at) VALUES ('w-old', 'h', 7, 1, 1)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	s, err := Open(ctx, "sqlite://"+path, Options{Migrate: true})
	if err != nil {
		t.Fatalf("Open (migrating to the latest): %v", err)
	}
	for hash, want := range map[string]domain.Scope{"h-admin": domain.ScopeAdmin, "h-owner": domain.ScopeOwner} {
		tok, err := s.TokenByHash(ctx, hash)
		if err != nil || tok.Scope != want {
			t.Errorf("token %s after the upgrade: scope %q, %v; want %q", hash, tok.Scope, err, want)
		}
	}
	ws, err := s.ListWorkers(ctx)
	if err != nil || len(ws) != 1 || ws[0].Version != "" || !reflect.DeepEqual(ws[0].Stats, domain.WorkerStats{}) {
		t.Errorf("workers after the upgrade = %+v, %v; want w-old with no version and zero stats", ws, err)
	}
	if err := s.CreateToken(ctx, domain.Token{ID: "t-read", Owner: "ops", Scope: domain.ScopeAdminRead, Hash: "h-read"}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateToken(ctx, domain.Token{ID: "t-new", Owner: "bob", Scope: domain.ScopeOwner, Hash: "h-new"}); err != nil {
		t.Fatal(err)
	}
	// What a binary that predates scopes would read, were it allowed to open the file.
	wantAdmin(t, db, "at 00004", map[string]int{"t-admin": 1, "t-owner": 0, "t-read": 1, "t-new": 0})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	if _, err := p.DownTo(ctx, 3); err != nil {
		t.Fatalf("migrate down to 3: %v", err)
	}
	wantAdmin(t, db, "after Down", map[string]int{"t-admin": 1, "t-owner": 0, "t-read": 0, "t-new": 0})
}

// wantAdmin checks the old admin column of tokens.
func wantAdmin(t *testing.T, db *sql.DB, when string, want map[string]int) {
	t.Helper()
	for id, w := range want {
		var admin int
		if err := db.QueryRowContext(t.Context(), `SELECT admin FROM api_tokens WHERE id = ?`, id).Scan(&admin); err != nil || admin != w {
			t.Errorf("%s: token %s admin = %d, %v; want %d", when, id, admin, err, w)
		}
	}
}
