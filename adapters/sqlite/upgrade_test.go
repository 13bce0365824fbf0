package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/adapters/internal/upgradetest"
	"github.com/chronoshq/chronos/ports"
)

// The upgrades of a database in use, as upgradetest describes them, each from the
// version before its migration.

func TestMigrateAdminScopes(t *testing.T) {
	upgradetest.AdminScopes(t, upgradeDB(t), 3, "api_tokens")
}

func TestMigrateSeriesKeepsRows(t *testing.T) { upgradetest.SeriesKeepsRows(t, upgradeDB(t), 5) }

func TestMigrateEndpointsKeepsRows(t *testing.T) { upgradetest.EndpointsKeepsRows(t, upgradeDB(t), 6) }

func TestMigrateTokenNoteAndLastUse(t *testing.T) {
	upgradetest.TokenNoteAndLastUse(t, upgradeDB(t), 8, `INSERT INTO api_tokens (id, owner, admin, scope, hash, created_at)
		VALUES ('t-old', 'alice', 0, 'owner', 'h-old', ?)`)
}

func TestMigrateLaneOnlyDueKeepsRows(t *testing.T) {
	upgradetest.LaneOnlyDueKeepsRows(t, upgradeDB(t), 8)
}

func TestMigrateSessionsDropsTheCookieKey(t *testing.T) {
	upgradetest.SessionsDropTheCookieKey(t, upgradeDB(t), 10,
		`INSERT OR IGNORE INTO chronos_state (name, value, updated_at) VALUES (?, 'v', 0)`)
}

// Migration 00008 upgrades a database at 00007: every alarm and event reads back as it
// was, and every active alarm is in alarms_lane_due under a lane. Rolled back to 00007
// and applied again, the same.
func TestMigrateLanesKeepsRows(t *testing.T) {
	upgradetest.KeepsRows(t, upgradeDB(t), 7, sqlrow.AlarmColumns, sqlrow.AlarmParams, upgradetest.AlarmsV6(t), nil,
		func(s *Store, when string) {
			var active, laned int
			err := s.reader.QueryRowContext(t.Context(), `SELECT count(*) FROM alarms WHERE status = 'active'`).Scan(&active)
			if err == nil {
				err = s.reader.QueryRowContext(t.Context(), `SELECT count(*) FROM alarms INDEXED BY alarms_lane_due
					WHERE status = 'active' AND `+laneExpr+` BETWEEN 0 AND 63`).Scan(&laned)
			}
			if err != nil || active == 0 || laned != active {
				t.Errorf("%s: %d active alarms, %d in alarms_lane_due (%v); want all", when, active, laned, err)
			}
		})
}

// upgradeDB is a new, empty database file, with the writer pool on it (closed with the
// test) and goose's provider, for a test of an upgrade.
func upgradeDB(t *testing.T) upgradetest.Database[*Store] {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := openWriter(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	p, err := newProvider(db)
	if err != nil {
		t.Fatal(err)
	}
	return upgradetest.Database[*Store]{
		DB: db, Provider: p, Placeholders: placeholders, Time: toDB, AlarmArgs: alarmArgs,
		Open: func(t *testing.T, clock ports.Clock) *Store {
			t.Helper()
			s, err := Open(t.Context(), "sqlite://"+path, Options{Migrate: true, Clock: clock})
			if err != nil {
				t.Fatalf("Open (migrating to the latest): %v", err)
			}
			return s
		},
		Columns: func(t *testing.T, table string, names ...string) int {
			n := 0
			for _, name := range names {
				n += storetest.Count(t, db, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, table, name)
			}
			return n
		},
		Indexed: func(t *testing.T, index string) bool {
			return storetest.Count(t, db, `SELECT count(*) FROM sqlite_schema WHERE name = ?`, index) != 0
		},
	}
}
