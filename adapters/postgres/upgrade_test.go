package postgres

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/adapters/internal/upgradetest"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// upgradeDB is a new, empty schema, a database/sql handle on it and goose's provider,
// for a test of an upgrade. Once rows are written, it checks that the next migration
// leaves the alarms table's rows where they are.
func upgradeDB(t *testing.T) upgradetest.Database[*Store] {
	t.Helper()
	u := newSchema(t)
	db, p := gooseOn(t, u)
	filenode := func(t *testing.T) int {
		return storetest.Count(t, db, `SELECT pg_relation_filenode('alarms')`)
	}
	return upgradetest.Database[*Store]{
		DB: db, Provider: p, AlarmArgs: func(a domain.Alarm) []any { e := new(Store).newEngine(); return e.AlarmArgs(a) },
		Placeholders: dollars,
		Time:         func(t time.Time) any { return timeArg(t) },
		Open: func(ctx context.Context, clock ports.Clock) (*Store, error) {
			return Open(ctx, u, Options{Migrate: true, Clock: clock})
		},
		ColumnSQL: `SELECT count(*) FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2`,
		IndexSQL: `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'alarms' AND indexname = $1`,
		Written: func(t *testing.T, from int64) {
			before := filenode(t)
			if _, err := p.UpTo(t.Context(), from+1); err != nil {
				t.Fatalf("migrate to %d: %v", from+1, err)
			}
			if filenode(t) != before {
				t.Errorf("migration %d rewrote the alarms table; it should leave its rows where they are", from+1)
			}
		},
	}
}

// TestMigrationUpgrades runs the upgrades of a database in use that upgradetest
// describes, each from the version before its migration; those that add columns must
// not rewrite the alarms table (upgradeDB checks).
func TestMigrationUpgrades(t *testing.T) {
	upgradetest.Run(t, upgradeDB, upgradetest.Upgrades{
		AdminScopes: 3, OldTokens: "api_tokens", Series: 5, Endpoints: 6,
		TokenNote: 9, InsertToken: `INSERT INTO api_tokens (id, owner, admin, scope, hash, created_at)
			VALUES ('t-old', 'alice', false, 'owner', 'h-old', $1)`,
		Sessions:    10,
		InsertState: `INSERT INTO chronos_state (name, value, updated_at) VALUES ($1, 'v', now()) ON CONFLICT (name) DO NOTHING`,
	})
}

// Migration 00009 upgrades a database at 00008: every alarm and event reads back exactly
// as it was, the table is not rewritten (the lane is an index expression, no column),
// and alarms_lane_due_idx is there, valid, on the lane the fair claim names. Rolled back
// to 00008 and applied again, the same.
func TestMigrationLanesKeepsRows(t *testing.T) {
	upgradetest.KeepsRows(t, upgradeDB(t), 8, upgradetest.AlarmColumnsV7, upgradetest.V7Params, upgradetest.AlarmsV6(t), nil,
		func(s *Store, when string) {
			var valid bool
			var def string
			if err := s.pool.QueryRow(t.Context(), `SELECT i.indisvalid, pg_get_indexdef(i.indexrelid) FROM pg_index i
				WHERE i.indexrelid = 'alarms_lane_due_idx'::regclass`).Scan(&valid, &def); err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			const want = "USING btree (((hashtext(owner) & 63)), next_fire_at) WHERE (status = 'active'::text)"
			if !valid || !strings.Contains(def, want) {
				t.Errorf("%s: alarms_lane_due_idx valid %t, %s; want valid, %s", when, valid, def, want)
			}
		})
}

// dollars is "$1, $2, ..., $n".
func dollars(n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = "$" + strconv.Itoa(i+1)
	}
	return strings.Join(ps, ", ")
}
