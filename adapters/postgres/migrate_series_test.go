package postgres

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/upgradetest"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/migrations"
)

// Migration 00006 upgrades a database the previous release wrote: every alarm (once
// and cron, in every status, one leased) and every event reads back exactly as it was,
// with no series options and no series state, and no pause is due; the table is not
// rewritten. Rolled back to 00005 and applied again, the same.
func TestMigrationSeriesKeepsRows(t *testing.T) {
	u := newSchema(t)
	ctx := context.Background()
	cfg, err := parseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg.ConnConfig.Copy())
	defer func() { _ = db.Close() }()
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.Postgres(), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 5); err != nil {
		t.Fatalf("migrate to 00005: %v", err)
	}
	as := upgradetest.Alarms(t)
	evs := upgradetest.Events(as)
	for _, a := range as {
		if _, err := db.ExecContext(ctx, `INSERT INTO alarms (`+upgradetest.AlarmColumnsV5+`) VALUES (`+
			dollars(upgradetest.V5Params)+`)`,
			a.ID, a.Owner, a.Label, string(a.Kind), timeArg(a.FireAt), a.CronExpr, a.Timezone, timeArg(a.NextFireAt),
			timeArg(a.ScheduledFor), a.ConversationID, a.WakeMessage, payloadArg(a.Payload), string(a.Status), string(a.Delivery),
			a.IdempotencyKey, a.MaxFailures, a.FailureCount, a.LastError, textArg(a.ClaimedBy), timeArg(a.ClaimedAt),
			timeArg(a.CreatedAt), timeArg(a.UpdatedAt), timeArg(a.LastFiredAt)); err != nil {
			t.Fatalf("the previous release's alarm %s: %v", a.ID, err)
		}
	}
	for _, e := range evs {
		args := sqlrow.AppendEvent(nil, e, func(t time.Time) any { return timeArg(t) })
		if _, err := db.ExecContext(ctx, `INSERT INTO alarm_events (`+sqlrow.EventColumns+`) VALUES (`+
			dollars(sqlrow.EventParams)+`)`, args...); err != nil {
			t.Fatalf("the previous release's event: %v", err)
		}
	}

	filenode := func() (n int64) {
		t.Helper()
		if err := db.QueryRowContext(ctx, `SELECT pg_relation_filenode('alarms')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := filenode()

	check := func(when string) {
		t.Helper()
		s := openStore(t, u, Options{Migrate: true})
		upgradetest.CheckAlarms(t, func(owner, id string) (domain.Alarm, error) { return s.Get(ctx, owner, id) }, as)
		upgradetest.CheckEvents(t, func(owner, id string) ([]domain.Event, error) { return s.Events(ctx, owner, id, 0) }, as, evs)
		if ids, err := s.DuePauses(ctx, 10); err != nil || len(ids) != 0 {
			t.Errorf("%s: DuePauses = %v, %v; want none", when, ids, err)
		}
		_ = s.Close() // before the schema changes under its cached statements
	}
	check("upgraded")
	if filenode() != before {
		t.Error("migration 00006 rewrote the alarms table; adding its columns should change the catalog only")
	}
	if _, err := p.DownTo(ctx, 5); err != nil {
		t.Fatalf("migrate down to 00005: %v", err)
	}
	check("down to 00005 and up again")
}

// dollars is "$1, $2, ..., $n".
func dollars(n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = "$" + strconv.Itoa(i+1)
	}
	return strings.Join(ps, ", ")
}
