package sqlite

import (
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
	if _, err := p.UpTo(ctx, 5); err != nil {
		t.Fatalf("migrate to 5: %v", err)
	}
	as := upgradetest.Alarms(t)
	evs := upgradetest.Events(as)
	for _, a := range as {
		// A row of the current columns begins with the v5 ones.
		if _, err := db.ExecContext(ctx, `INSERT INTO alarms (`+upgradetest.AlarmColumnsV5+`) VALUES (`+
			placeholders(upgradetest.V5Params)+`)`, alarmArgs(a)[:upgradetest.V5Params]...); err != nil {
			t.Fatalf("the previous release's alarm %s: %v", a.ID, err)
		}
	}
	for _, e := range evs {
		if _, err := db.ExecContext(ctx, `INSERT INTO alarm_events (`+sqlrow.EventColumns+`) VALUES (`+
			placeholders(sqlrow.EventParams)+`)`, sqlrow.AppendEvent(nil, e, toDB)...); err != nil {
			t.Fatalf("the previous release's event: %v", err)
		}
	}

	check := func(when string) {
		t.Helper()
		s, err := Open(ctx, "sqlite://"+path, Options{Migrate: true})
		if err != nil {
			t.Fatalf("%s: Open (migrating to the latest): %v", when, err)
		}
		defer s.Close()
		upgradetest.CheckAlarms(t, func(owner, id string) (domain.Alarm, error) { return s.Get(ctx, owner, id) }, as)
		upgradetest.CheckEvents(t, func(owner, id string) ([]domain.Event, error) { return s.Events(ctx, owner, id, 0) }, as, evs)
		if ids, err := s.DuePauses(ctx, 10); err != nil || len(ids) != 0 {
			t.Errorf("%s: DuePauses = %v, %v; want none", when, ids, err)
		}
	}
	check("upgraded")
	if _, err := p.DownTo(ctx, 5); err != nil {
		t.Fatalf("migrate down to 5: %v", err)
	}
	check("down to 5 and up again")
}
