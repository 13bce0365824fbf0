package postgres

import (
	"context"
	"reflect"
	"testing"

	"github.com/chronoshq/chronos/domain"
)

// Migration 00004 upgrades a database the previous release wrote: tokens that were
// admin read as scope admin and the others as owner, workers read with no version and
// zero stats and take heartbeats with stats. Its Down leaves the admin flag on full
// admin tokens only: a read-only admin token must not gain write access by a downgrade.
func TestMigrationAdminUpgradesExistingRows(t *testing.T) {
	ctx := context.Background()
	u, db, p := migratedSchema(t, 3)
	for _, q := range []string{
		`INSERT INTO api_tokens (id, owner, admin, hash, created_at) VALUES
			('tok-ops', 'ops', true, 'hash-ops', now()), ('tok-alice', 'alice', false, 'hash-alice', now())`,
		`INSERT INTO workers (id, host, pid, started_at, heartbeat_at) VALUES ('node-1', 'h', 7, now(), now())`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("the previous release's rows: %v", err)
		}
	}

	s := openStore(t, u, Options{Migrate: true})
	for hash, want := range map[string]domain.Scope{"hash-ops": domain.ScopeAdmin, "hash-alice": domain.ScopeOwner} {
		tok, err := s.TokenByHash(ctx, hash)
		if err != nil {
			t.Fatalf("TokenByHash(%s): %v", hash, err)
		}
		if tok.Scope != want {
			t.Errorf("token %s: scope %q, want %q", tok.ID, tok.Scope, want)
		}
	}
	ws, err := s.ListWorkers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || ws[0].Version != "" || !reflect.DeepEqual(ws[0].Stats, domain.WorkerStats{}) || ws[0].PID != 7 {
		t.Errorf("the previous release's worker reads as %+v, want node-1 with no version and zero stats", ws)
	}
	stats := domain.WorkerStats{InFlight: 2, Delivered: 9}
	if err := s.Heartbeat(ctx, "node-1", stats); err != nil {
		t.Fatalf("Heartbeat: %v", err)
	}
	if ws, err = s.ListWorkers(ctx); err != nil || len(ws) != 1 || !reflect.DeepEqual(ws[0].Stats, stats) {
		t.Errorf("after a heartbeat: %+v (%v), want stats %+v", ws, err, stats)
	}

	// Tokens created now keep the old flag in step with the scope.
	now, err := s.Now(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []domain.Token{
		{ID: "tok-reader", Owner: "ops", Scope: domain.ScopeAdminRead, Hash: "hash-reader", CreatedAt: now},
		{ID: "tok-root", Owner: "ops", Scope: domain.ScopeAdmin, Hash: "hash-root", CreatedAt: now},
		{ID: "tok-bob", Owner: "bob", Scope: domain.ScopeOwner, Hash: "hash-bob", CreatedAt: now},
	} {
		if err := s.CreateToken(ctx, tok); err != nil {
			t.Fatalf("CreateToken(%s): %v", tok.ID, err)
		}
	}
	wantFlags := func(when string, want map[string]bool) {
		t.Helper()
		rows, err := db.QueryContext(ctx, `SELECT id, admin FROM api_tokens`)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = rows.Close() }()
		got := map[string]bool{}
		for rows.Next() {
			var id string
			var flag bool
			if err := rows.Scan(&id, &flag); err != nil {
				t.Fatal(err)
			}
			got[id] = flag
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		for id, w := range want {
			if g, ok := got[id]; !ok || g != w {
				t.Errorf("%s: token %s admin = %t (present %t), want %t", when, id, g, ok, w)
			}
		}
	}
	wantFlags("at 00004", map[string]bool{"tok-ops": true, "tok-alice": false, "tok-reader": true, "tok-root": true, "tok-bob": false})

	if _, err := p.DownTo(ctx, 3); err != nil {
		t.Fatalf("migrate down to 00003: %v", err)
	}
	wantFlags("back at 00003", map[string]bool{"tok-ops": true, "tok-alice": false, "tok-reader": false, "tok-root": true, "tok-bob": false})
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("migrate up again: %v", err)
	}
}
