package mysql

import (
	"database/sql"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/adapters/internal/upgradetest"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// The upgrades of a database in use, as upgradetest describes them, each from the
// version before its migration.

func TestMigrationToScopes(t *testing.T) { upgradetest.AdminScopes(t, upgradeDB(t), 2, "tokens") }

func TestMigrationSeriesKeepsRows(t *testing.T) { upgradetest.SeriesKeepsRows(t, upgradeDB(t), 5) }

// Its column is added INSTANT.
func TestMigrationEndpointsKeepsRows(t *testing.T) {
	upgradetest.EndpointsKeepsRows(t, upgradeDB(t), 6)
}

func TestMigrationTokenNoteAndLastUse(t *testing.T) {
	upgradetest.TokenNoteAndLastUse(t, upgradeDB(t), 8, `INSERT INTO api_tokens (id, owner, admin, scope, hash, created_at)
		VALUES ('t-old', 'alice', FALSE, 'owner', 'h-old', ?)`)
}

// Its index is dropped in place; rolled back, alarms_due is built again.
func TestMigrationLaneOnlyDueKeepsRows(t *testing.T) {
	upgradetest.LaneOnlyDueKeepsRows(t, upgradeDB(t), 8)
}

func TestMigrationSessionsDropsTheCookieKey(t *testing.T) {
	upgradetest.SessionsDropTheCookieKey(t, upgradeDB(t), 10,
		`INSERT IGNORE INTO chronos_state (name, value, updated_at) VALUES (?, 'v', UTC_TIMESTAMP(6))`)
}

// Migration 00008 upgrades a database at 7 in use (its column added INSTANT, its index
// built in place): every alarm and event reads back exactly as it was, and every stored
// alarm is in its owner's lane at once, indexed. Rolled back to 7 (the column and index
// gone) and applied again, the same.
func TestMigrationLanesKeepsRows(t *testing.T) {
	upgradetest.KeepsRows(t, upgradeDB(t), 7, sqlrow.AlarmColumns, sqlrow.AlarmParams, upgradetest.AlarmsV6(t), nil,
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
	s := d.Open(t, nil)
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
	if n := keyParts(t, d.DB, "alarms_due"); n != 2 {
		t.Errorf("alarms_due after Down: %d key parts, want 2", n)
	}
}

// upgradeDB is a new, empty database, an open connection to it (closed when t ends)
// and goose's provider on it, for a test of an upgrade.
func upgradeDB(t *testing.T) upgradetest.Database[*Store] {
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
	return upgradetest.Database[*Store]{
		DB: db, Provider: p, Placeholders: placeholders, Time: timeArg, AlarmArgs: alarmArgs,
		Open: func(t *testing.T, clock ports.Clock) *Store {
			t.Helper()
			s, err := Open(t.Context(), u, Options{Migrate: true, Clock: clock})
			if err != nil {
				t.Fatalf("Open (migrating to the latest): %v", err)
			}
			return s
		},
		Columns: func(t *testing.T, table string, names ...string) int {
			n := 0
			for _, name := range names {
				n += storetest.Count(t, db, `SELECT COUNT(*) FROM information_schema.columns
					WHERE table_schema = DATABASE() AND table_name = ? AND column_name = ?`, table, name)
			}
			return n
		},
		Indexed: func(t *testing.T, index string) bool { return keyParts(t, db, index) != 0 },
	}
}

// keyParts is how many key parts the index of alarms named index has (none: there is no such index).
func keyParts(t *testing.T, db *sql.DB, index string) int {
	return storetest.Count(t, db, `SELECT COUNT(*) FROM information_schema.statistics
		WHERE table_schema = DATABASE() AND table_name = 'alarms' AND index_name = ?`, index)
}
