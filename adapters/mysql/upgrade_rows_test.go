package mysql

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/upgradetest"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Migration 00006 upgrades a database in use: every alarm (once and cron, in every
// status, one leased) and every event reads back exactly as it was, with no series
// options and no series state, and no pause is due. Rolled back to 5 and applied
// again, the same.
func TestMigrationSeriesKeepsRows(t *testing.T) {
	upgradeKeepsRows(t, 5, upgradetest.AlarmColumnsV5, upgradetest.V5Params, upgradetest.Alarms(t),
		func(ctx context.Context, s *Store, when string) {
			if ids, err := s.DuePauses(ctx, 10); err != nil || len(ids) != 0 {
				t.Errorf("%s: DuePauses = %v, %v; want none", when, ids, err)
			}
		})
}

// Migration 00007 upgrades a database at 6 in use (its column added INSTANT): every
// alarm (series with their options and state among them) and every event reads back
// exactly as it was, naming no endpoint, and there is no endpoint. Rolled back to 6 and
// applied again, the same.
func TestMigrationEndpointsKeepsRows(t *testing.T) {
	upgradeKeepsRows(t, 6, upgradetest.AlarmColumnsV6, upgradetest.V6Params, upgradetest.AlarmsV6(t),
		func(ctx context.Context, s *Store, when string) {
			if es, err := s.ListEndpoints(ctx, ""); err != nil || len(es) != 0 {
				t.Errorf("%s: ListEndpoints = %v, %v; want none", when, es, err)
			}
		})
}

// upgradeKeepsRows writes as (the columns cols, the first n values of each row) and
// their events into a database at version from, opens it migrating to the latest, and
// checks that everything reads back as written, and then check; then it rolls back to
// from and migrates up again, and checks the same.
func upgradeKeepsRows(t *testing.T, from int64, cols string, n int, as []domain.Alarm,
	check func(ctx context.Context, s *Store, when string)) {
	t.Helper()
	ctx := t.Context()
	engine := new(Store).newEngine()
	u, db, p := migratedTo(t, from)
	evs := upgradetest.Events(as)
	for _, a := range as {
		// A row of the current columns begins with the older ones.
		mustExec(t, db, `INSERT INTO alarms (`+cols+`) VALUES (`+placeholders(n)+`)`, engine.AlarmArgs(a)[:n]...)
	}
	for _, e := range evs {
		mustExec(t, db, `INSERT INTO alarm_events (`+sqlrow.EventColumns+`) VALUES (`+placeholders(sqlrow.EventParams)+`)`,
			sqlrow.AppendEvent(nil, e, timeArg)...)
	}

	upgraded := func(when string) {
		t.Helper()
		s, err := Open(ctx, u, Options{Migrate: true, Clock: fixedClock(upgradetest.Now)})
		if err != nil {
			t.Fatalf("%s: Open (migrating to the latest): %v", when, err)
		}
		defer s.Close()
		upgradetest.CheckAlarms(t, func(owner, id string) (domain.Alarm, error) { return s.Get(ctx, ports.OwnedBy(owner), id) }, as)
		upgradetest.CheckEvents(t, func(owner, id string) ([]domain.Event, error) { return s.Events(ctx, ports.OwnedBy(owner), id, 0) }, as, evs)
		check(ctx, s, when)
	}
	upgraded("upgraded")
	if _, err := p.DownTo(ctx, from); err != nil {
		t.Fatalf("roll back to %d: %v", from, err)
	}
	upgraded("down and up again")
}

// Migration 00008 upgrades a database at 7 in use (its column added INSTANT, its index
// built in place): every alarm and event reads back exactly as it was, and every stored
// alarm is in its owner's lane at once, indexed. Rolled back to 7 (the column and index
// gone) and applied again, the same.
func TestMigrationLanesKeepsRows(t *testing.T) {
	upgradeKeepsRows(t, 7, sqlrow.AlarmColumns, sqlrow.AlarmParams, upgradetest.AlarmsV6(t),
		func(ctx context.Context, s *Store, when string) {
			var n, wrong int
			err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(lane IS NULL OR lane <> CRC32(owner) % 64), 0)
				FROM alarms FORCE INDEX (alarms_lane_due)`).Scan(&n, &wrong)
			if err != nil || n == 0 || wrong != 0 {
				t.Errorf("%s: %d alarms through alarms_lane_due, %d not in their owner's lane (%v)", when, n, wrong, err)
			}
		})
}

// Migration 00010 (after 00009) upgrades a database at 8 in use (its index dropped in place): every
// alarm and event reads back as it was, alarms_due is gone, NextDue finds the earliest
// unleased active alarm through the lanes, and, once every alarm is due, a plain claim
// and then a fair one take every active alarm (the leased one's lease has run out),
// each once. Rolled back to 8 (alarms_due built again) and applied again, the same.
func TestMigrationLaneOnlyDueKeepsRows(t *testing.T) {
	as := upgradetest.AlarmsV6(t)
	var active []string
	var first time.Time
	for _, a := range as {
		if a.Status != domain.StatusActive {
			continue
		}
		active = append(active, a.ID)
		if a.ClaimedBy == "" && (first.IsZero() || a.NextFireAt.Before(first)) {
			first = a.NextFireAt
		}
	}
	if len(active) < 2 {
		t.Fatalf("%d active alarms in upgradetest.AlarmsV6, want two or more", len(active))
	}
	slices.Sort(active)
	upgradeKeepsRows(t, 8, sqlrow.AlarmColumns, sqlrow.AlarmParams, as,
		func(ctx context.Context, s *Store, when string) {
			var n int
			if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.statistics
				WHERE table_schema = DATABASE() AND table_name = 'alarms' AND index_name = 'alarms_due'`).Scan(&n); err != nil || n != 0 {
				t.Errorf("%s: alarms_due has %d key parts (%v), want none", when, n, err)
			}
			if at, ok, err := s.NextDue(ctx); err != nil || !ok || !at.Equal(first) {
				t.Errorf("%s: NextDue = %s, %t, %v; want %s", when, at, ok, err, first)
			}
			if when == "upgraded" {
				return // the rows must read back unchanged after the way down and up
			}
			s.clock = fixedClock(upgradetest.Now.Add(365 * 24 * time.Hour))
			plain, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w1", Lease: time.Minute, Batch: len(active) - 1})
			if err != nil {
				t.Fatal(err)
			}
			fair, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w2", Lease: time.Minute, Batch: 10, Fair: &ports.FairClaim{PerLane: 10}})
			if err != nil {
				t.Fatal(err)
			}
			got := alarmIDsOf(append(plain.Alarms, fair.Alarms...))
			slices.Sort(got)
			if len(plain.Alarms) != len(active)-1 || !slices.Equal(got, active) {
				t.Errorf("%s: plain then fair claim took %v, want the %d active alarms %v (the plain claim all but one)", when, got, len(active), active)
			}
		})
}
