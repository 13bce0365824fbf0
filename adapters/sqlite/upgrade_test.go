package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/upgradetest"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

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
		DB: db, Provider: p, Placeholders: placeholders, Time: toDB, AlarmArgs: func(a domain.Alarm) []any { e := new(Store).newEngine(); return e.AlarmArgs(a) },
		Open: func(ctx context.Context, clock ports.Clock) (*Store, error) {
			return Open(ctx, "sqlite://"+path, Options{Migrate: true, Clock: clock})
		},
		ColumnSQL: `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`,
		IndexSQL:  `SELECT count(*) FROM sqlite_schema WHERE name = ?`,
	}
}

// TestMigrateUpgrades runs the upgrades of a database in use that upgradetest describes,
// each from the version before its migration.
func TestMigrateUpgrades(t *testing.T) {
	upgradetest.Run(t, upgradeDB, upgradetest.Upgrades{
		AdminScopes: 3, OldTokens: "api_tokens", Series: 5, Endpoints: 6, LaneOnlyDue: 8,
		TokenNote: 8, InsertToken: `INSERT INTO api_tokens (id, owner, admin, scope, hash, created_at)
			VALUES ('t-old', 'alice', 0, 'owner', 'h-old', ?)`,
		Sessions: 10, InsertState: `INSERT OR IGNORE INTO chronos_state (name, value, updated_at) VALUES (?, 'v', 0)`,
	})
}

// Migrations 00008 and 00016 upgrade a database at 00007: every alarm and event reads
// back as it was, every alarm's lane column holds its owner's lane, and every active
// alarm is in alarms_lane_due under it. Rolled back to 00007
// and applied again, the same.
func TestMigrateLanesKeepsRows(t *testing.T) {
	upgradetest.KeepsRows(t, upgradeDB(t), 7, upgradetest.AlarmColumnsV7, upgradetest.V7Params, upgradetest.AlarmsV6(t), nil,
		func(s *Store, when string) {
			var active, laned, wrong int
			err := s.reader.QueryRowContext(t.Context(), `SELECT count(*) FROM alarms WHERE status = 'active'`).Scan(&active)
			if err == nil {
				err = s.reader.QueryRowContext(t.Context(), `SELECT count(*) FROM alarms INDEXED BY alarms_lane_due
					WHERE status = 'active' AND lane BETWEEN 0 AND 63`).Scan(&laned)
			}
			if err == nil {
				err = s.reader.QueryRowContext(t.Context(), `SELECT count(*) FROM alarms WHERE lane <> `+laneSQL("owner")).Scan(&wrong)
			}
			if err != nil || active == 0 || laned != active || wrong > 0 {
				t.Errorf("%s: %d active alarms, %d in alarms_lane_due, %d in another lane than their owner's (%v); want all, none",
					when, active, laned, wrong, err)
			}
		})
}
