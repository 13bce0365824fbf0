package mysql

import (
	"database/sql"
	"reflect"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/chronoshq/chronos/domain"
)

// migratedTo is the URL of a new database migrated up to version, an open connection
// to it (closed when t ends) and the provider that migrated it, for a test of the
// migrations after version.
func migratedTo(t *testing.T, version int64) (string, *sql.DB, *goose.Provider) {
	t.Helper()
	u := newDatabase(t)
	db, _, err := connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := newProvider(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(t.Context(), version); err != nil {
		t.Fatalf("migrate to %d: %v", version, err)
	}
	return u, db, p
}

// Migration 00003 upgrades a database in use: a token that was admin reads as scope
// admin and the others as owner, a registered worker reads with no version and zero
// stats, and new tokens keep the legacy admin column sane for older binaries. Rolled
// back and applied again, a read-only admin token does not come back as admin.
func TestMigrationToScopes(t *testing.T) {
	ctx := t.Context()
	u, db, p := migratedTo(t, 2)
	at := micro(testNow)
	mustExec(t, db, `INSERT INTO tokens (id, owner, admin, hash, created_at) VALUES
		('t-admin', 'ops', TRUE, 'h-admin', ?), ('t-user', 'alice', FALSE, 'h-user', ?)`, at, at)
	mustExec(t, db, `INSERT INTO workers (id, host, pid, started_at, heartbeat_at) VALUES ('w', 'h', 7, ?, ?)`, at, at)
	if err := Migrate(ctx, u); err != nil {
		t.Fatalf("Migrate: %v", err)
	}

	s, err := Open(ctx, u, Options{Clock: fixedClock(testNow)})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	wantScope := func(what, hash string, want domain.Scope) {
		t.Helper()
		if tok, err := s.TokenByHash(ctx, hash); err != nil || tok.Scope != want {
			t.Errorf("%s: token %s = scope %q, %v; want %q", what, hash, tok.Scope, err, want)
		}
	}
	wantScope("upgraded", "h-admin", domain.ScopeAdmin)
	wantScope("upgraded", "h-user", domain.ScopeOwner)
	ws, err := s.ListWorkers(ctx)
	if err != nil || len(ws) != 1 || ws[0].PID != 7 || ws[0].Version != "" || !reflect.DeepEqual(ws[0].Stats, domain.WorkerStats{}) {
		t.Errorf("upgraded workers = %+v, %v; want w with no version and zero stats", ws, err)
	}

	for _, tok := range []domain.Token{
		{ID: "t-reader", Owner: "ops", Scope: domain.ScopeAdminRead, Hash: "h-reader", CreatedAt: testNow},
		{ID: "t-owner", Owner: "bob", Scope: domain.ScopeOwner, Hash: "h-owner", CreatedAt: testNow},
	} {
		if err := s.CreateToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	for id, want := range map[string]bool{"t-admin": true, "t-user": false, "t-reader": true, "t-owner": false} {
		var admin bool
		if err := db.QueryRowContext(ctx, `SELECT admin FROM api_tokens WHERE id = ?`, id).Scan(&admin); err != nil || admin != want {
			t.Errorf("token %s: legacy admin = %t, %v; want %t (scope <> 'owner')", id, admin, err, want)
		}
	}

	if _, err := p.DownTo(ctx, 2); err != nil {
		t.Fatalf("roll back to 2: %v", err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("migrate again: %v", err)
	}
	wantScope("down and up", "h-admin", domain.ScopeAdmin)
	wantScope("down and up", "h-reader", domain.ScopeOwner)
	wantScope("down and up", "h-owner", domain.ScopeOwner)
}

// Migration 00004 renames tokens to api_tokens, the name the other stores use, keeping
// every token; rolled back, the tokens are in tokens again.
func TestMigrationRenamesTokens(t *testing.T) {
	ctx := t.Context()
	u, db, p := migratedTo(t, 3)
	mustExec(t, db, `INSERT INTO tokens (id, owner, scope, admin, hash, created_at) VALUES ('t', 'ops', 'admin:read', TRUE, 'h', ?)`, micro(testNow))
	// To the latest, which Open requires; rolled back to 3 below, through 00004's Down.
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("migrate from 3: %v", err)
	}
	s, err := Open(ctx, u, Options{Clock: fixedClock(testNow)})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	if tok, err := s.TokenByHash(ctx, "h"); err != nil || tok.ID != "t" || tok.Scope != domain.ScopeAdminRead {
		t.Errorf("renamed: TokenByHash = %+v, %v; want token t, scope admin:read", tok, err)
	}

	if _, err := p.DownTo(ctx, 3); err != nil {
		t.Fatalf("roll back to 3: %v", err)
	}
	var id string
	if err := db.QueryRowContext(ctx, `SELECT id FROM tokens WHERE hash = 'h'`).Scan(&id); err != nil || id != "t" {
		t.Errorf("rolled back: token in tokens = %q, %v; want t", id, err)
	}
}

// Migration 00008's Down removes the lane column and its index, and nothing else.
func TestMigrationLanesDown(t *testing.T) {
	ctx := t.Context()
	_, db, p := migratedTo(t, 8)
	if _, err := p.DownTo(ctx, 7); err != nil {
		t.Fatalf("roll back to 7: %v", err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.statistics
		WHERE table_schema = DATABASE() AND table_name = 'alarms' AND index_name = 'alarms_lane_due'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("alarms_lane_due after Down: %d key parts (%v), want none", n, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.columns
		WHERE table_schema = DATABASE() AND table_name = 'alarms' AND column_name = 'lane'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("lane column after Down: %d (%v), want none", n, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.statistics
		WHERE table_schema = DATABASE() AND table_name = 'alarms' AND index_name = 'alarms_due'`).Scan(&n); err != nil || n != 2 {
		t.Errorf("alarms_due after Down: %d key parts (%v), want 2", n, err)
	}
}
