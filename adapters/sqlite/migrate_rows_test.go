package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/upgradetest"
	"github.com/chronoshq/chronos/domain"
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

// upgradeKeepsRows writes as (the columns cols, the first n values of each row) and
// their events into a database at version from, opens it migrating to the latest, and
// checks that everything reads back as written, and then check; then it migrates down
// to from and up again, and checks the same.
func upgradeKeepsRows(t *testing.T, from int64, cols string, n int, as []domain.Alarm,
	check func(ctx context.Context, s *Store, when string)) {
	t.Helper()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := openWriter(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := newProvider(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, from); err != nil {
		t.Fatalf("migrate to %d: %v", from, err)
	}
	evs := upgradetest.Events(as)
	for _, a := range as {
		// A row of the current columns begins with the older ones.
		if _, err := db.ExecContext(ctx, `INSERT INTO alarms (`+cols+`) VALUES (`+placeholders(n)+`)`,
			alarmArgs(a)[:n]...); err != nil {
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
		upgradetest.CheckAlarms(t, func(owner, id string) (domain.Alarm, error) { return s.Get(ctx, owner, id) }, as)
		upgradetest.CheckEvents(t, func(owner, id string) ([]domain.Event, error) { return s.Events(ctx, owner, id, 0) }, as, evs)
		check(ctx, s, when)
	}
	upgraded("upgraded")
	if _, err := p.DownTo(ctx, from); err != nil {
		t.Fatalf("migrate down to %d: %v", from, err)
	}
	upgraded("down and up again")
}
