package sqlite

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/upgradetest"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Migration 00006 upgrades a database the previous release wrote: every alarm (once
// and cron, in every status, one leased) and every event reads back exactly as it was,
// with no series options and no series state, and no pause is due. Rolled back to 00005
// and applied again, the same.
func TestMigrateSeriesKeepsRows(t *testing.T) {
	upgradeKeepsRows(t, 5, upgradetest.AlarmColumnsV5, upgradetest.V5Params, upgradetest.Alarms(t),
		func(ctx context.Context, s *Store, when string) {
			if ids, err := s.DuePauses(ctx, 10); err != nil || len(ids) != 0 {
				t.Errorf("%s: DuePauses = %v, %v; want none", when, ids, err)
			}
		})
}

// Migration 00007 upgrades a database at 00006: every alarm (series with their options
// and state among them) and every event reads back exactly as it was, naming no
// endpoint, and there is no endpoint. Rolled back to 00006 and applied again, the same.
func TestMigrateEndpointsKeepsRows(t *testing.T) {
	upgradeKeepsRows(t, 6, upgradetest.AlarmColumnsV6, upgradetest.V6Params, upgradetest.AlarmsV6(t),
		func(ctx context.Context, s *Store, when string) {
			if es, err := s.ListEndpoints(ctx, ""); err != nil || len(es) != 0 {
				t.Errorf("%s: ListEndpoints = %v, %v; want none", when, es, err)
			}
		})
}

// Migration 00010 (with 00009 before it) upgrades a database at 00008: every alarm and event reads back as it
// was, alarms_due is gone, NextDue finds the earliest unleased active alarm through the
// lanes, and, once every alarm is due, a plain claim and then a fair one take every
// active alarm (the leased one's lease has run out), each once. Rolled back to 00008
// and applied again, the same.
func TestMigrateLaneOnlyDueKeepsRows(t *testing.T) {
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
	upgradeKeepsRows(t, 8, sqlrow.AlarmColumns, sqlrow.AlarmParams, as,
		func(ctx context.Context, s *Store, when string) {
			var n int
			if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'alarms_due'`).Scan(&n); err != nil || n != 0 {
				t.Errorf("%s: %d indexes alarms_due (%v), want none", when, n, err)
			}
			if at, ok, err := s.NextDue(ctx); err != nil || !ok || !at.Equal(first) {
				t.Errorf("%s: NextDue = %s, %t, %v; want %s", when, at, ok, err, first)
			}
			if when == "upgraded" {
				return // the rows must read back unchanged after the way down and up
			}
			s.clock = fixedClock{upgradetest.Now.Add(365 * 24 * time.Hour)}
			plain, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w1", Lease: time.Minute, Batch: len(active) - 1})
			if err != nil {
				t.Fatal(err)
			}
			fair, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w2", Lease: time.Minute, Batch: 10, Fair: &ports.FairClaim{PerLane: 10}})
			if err != nil {
				t.Fatal(err)
			}
			got := ids(append(plain.Alarms, fair.Alarms...))
			slices.Sort(active)
			sorted := strings.Split(got, ",")
			slices.Sort(sorted)
			if len(plain.Alarms) != len(active)-1 || !slices.Equal(sorted, active) {
				t.Errorf("%s: plain then fair claim took %s, want the %d active alarms %v (the plain claim all but one)", when, got, len(active), active)
			}
		})
}

// upgradeKeepsRows writes as (the columns cols, the first n values of each row) and
// their events into a database at version from, opens it migrating to the latest, and
// checks that everything reads back as written, and then check; then it migrates down
// to from and up again, and checks the same.
func upgradeKeepsRows(t *testing.T, from int64, cols string, n int, as []domain.Alarm,
	check func(ctx context.Context, s *Store, when string)) {
	t.Helper()
	ctx := t.Context()
	engine := new(Store).newEngine()
	path, db, p := migratedFile(t, from)
	evs := upgradetest.Events(as)
	for _, a := range as {
		// A row of the current columns begins with the older ones.
		if _, err := db.ExecContext(ctx, `INSERT INTO alarms (`+cols+`) VALUES (`+placeholders(n)+`)`,
			engine.AlarmArgs(a)[:n]...); err != nil {
			t.Fatalf("the previous release's alarm %s: %v", a.ID, err)
		}
	}
	for _, e := range evs {
		if _, err := db.ExecContext(ctx, `INSERT INTO alarm_events (`+sqlrow.EventColumns+`) VALUES (`+
			placeholders(sqlrow.EventParams)+`)`, sqlrow.AppendEvent(nil, e, toDB)...); err != nil {
			t.Fatalf("the previous release's event: %v", err)
		}
	}

	upgraded := func(when string) {
		t.Helper()
		s, err := Open(ctx, "sqlite://"+path, Options{Migrate: true})
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
		t.Fatalf("migrate down to %d: %v", from, err)
	}
	upgraded("down and up again")
}
