package mysql

import (
	"context"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/upgradetest"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// upgradeDB is a new, empty database, an open connection to it (closed when t ends)
// and goose's provider on it, for a test of an upgrade.
func upgradeDB(t *testing.T) upgradetest.Database[*Store] {
	t.Helper()
	u := newDatabase(t)
	db, _, err := connect(t.Context(), u, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := newProvider(db)
	if err != nil {
		t.Fatal(err)
	}
	return upgradetest.Database[*Store]{
		DB: db, Provider: p, Placeholders: placeholders, Time: timeArg, AlarmArgs: func(a domain.Alarm) []any { e := new(Store).newEngine(); return e.AlarmArgs(a) },
		Open: func(ctx context.Context, clock ports.Clock) (*Store, error) {
			return Open(ctx, u, Options{Migrate: true, Clock: clock})
		},
		ColumnSQL: `SELECT COUNT(*) FROM information_schema.columns
			WHERE table_schema = DATABASE() AND table_name = ? AND column_name = ?`,
		// Its key parts: alarms_due has two.
		IndexSQL: `SELECT COUNT(*) FROM information_schema.statistics
			WHERE table_schema = DATABASE() AND table_name = 'alarms' AND index_name = ?`,
	}
}

// TestMigrationUpgrades runs the upgrades of a database in use that upgradetest
// describes, each from the version before its migration: 00007 adds its column
// INSTANT, 00010 drops its index in place (and its Down builds alarms_due again).
func TestMigrationUpgrades(t *testing.T) {
	upgradetest.Run(t, upgradeDB, upgradetest.Upgrades{
		AdminScopes: 2, OldTokens: "tokens", Series: 5, Endpoints: 6, LaneOnlyDue: 8,
		TokenNote: 8, InsertToken: `INSERT INTO api_tokens (id, owner, admin, scope, hash, created_at)
			VALUES ('t-old', 'alice', FALSE, 'owner', 'h-old', ?)`,
		Sessions: 10, InsertState: `INSERT IGNORE INTO chronos_state (name, value, updated_at) VALUES (?, 'v', UTC_TIMESTAMP(6))`,
	})
}

// Migration 00008 upgrades a database at 7 in use (its column added INSTANT, its index
// built in place): every alarm and event reads back exactly as it was, and every stored
// alarm is in its owner's lane at once, indexed. Rolled back to 7 (the column and index
// gone) and applied again, the same.
func TestMigrationLanesKeepsRows(t *testing.T) {
	upgradetest.KeepsRows(t, upgradeDB(t), 7, upgradetest.AlarmColumnsV7, upgradetest.V7Params, upgradetest.AlarmsV6(t), nil,
		func(s *Store, when string) {
			var n, wrong int
			err := s.db.QueryRowContext(t.Context(), `SELECT COUNT(*), COALESCE(SUM(lane IS NULL OR lane <> CRC32(owner) % 64), 0)
				FROM alarms FORCE INDEX (alarms_lane_due)`).Scan(&n, &wrong)
			if err != nil || n == 0 || wrong != 0 {
				t.Errorf("%s: %d alarms through alarms_lane_due, %d not in their owner's lane (%v)", when, n, wrong, err)
			}
		})
}

// Migration 00004 renames tokens to api_tokens, the name the other stores use, keeping
// every token; rolled back, the tokens are in tokens again.
func TestMigrationRenamesTokens(t *testing.T) {
	d := upgradeDB(t).At(t, 3)
	d.Exec(t, `INSERT INTO tokens (id, owner, scope, admin, hash, created_at) VALUES ('t', 'ops', 'admin:read', TRUE, 'h', ?)`, micro(testNow))
	s := d.Store(t, nil)
	if tok, err := s.TokenByHash(t.Context(), "h"); err != nil || tok.ID != "t" || tok.Scope != domain.ScopeAdminRead {
		t.Errorf("renamed: TokenByHash = %+v, %v; want token t, scope admin:read", tok, err)
	}
	s.Close()

	d.DownTo(t, 3)
	var id string
	if err := d.DB.QueryRowContext(t.Context(), `SELECT id FROM tokens WHERE hash = 'h'`).Scan(&id); err != nil || id != "t" {
		t.Errorf("rolled back: token in tokens = %q, %v; want t", id, err)
	}
}

// Migration 00008's Down removes the lane column and its index, and nothing else.
func TestMigrationLanesDown(t *testing.T) {
	d := upgradeDB(t).At(t, 8)
	d.DownTo(t, 7)
	if d.Indexed(t, "alarms_lane_due") {
		t.Error("alarms_lane_due is still there after Down")
	}
	if n := d.Columns(t, "alarms", "lane"); n != 0 {
		t.Errorf("lane column after Down: %d, want none", n)
	}
	var n int
	if err := d.DB.QueryRowContext(t.Context(), d.IndexSQL, "alarms_due").Scan(&n); err != nil || n != 2 {
		t.Errorf("alarms_due after Down: %d key parts (%v), want 2", n, err)
	}
}
