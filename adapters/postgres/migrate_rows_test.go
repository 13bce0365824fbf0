package postgres

import (
	"context"
	"github.com/chronoshq/chronos/ports"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/adapters/internal/upgradetest"
	"github.com/chronoshq/chronos/domain"
)

// Migration 00006 upgrades a database the previous release wrote: every alarm (once
// and cron, in every status, one leased) and every event reads back exactly as it was,
// with no series options and no series state, and no pause is due; the table is not
// rewritten. Rolled back to 00005 and applied again, the same.
func TestMigrationSeriesKeepsRows(t *testing.T) {
	upgradeKeepsRows(t, 5, upgradetest.AlarmColumnsV5, upgradetest.V5Params, upgradetest.Alarms(t), true,
		func(ctx context.Context, s *Store, when string) {
			if ids, err := s.DuePauses(ctx, 10); err != nil || len(ids) != 0 {
				t.Errorf("%s: DuePauses = %v, %v; want none", when, ids, err)
			}
		})
}

// Migration 00007 upgrades a database at 00006: every alarm (series with their options
// and state among them) and every event reads back exactly as it was, naming no
// endpoint, and there is no endpoint; adding the column rewrites no row. Rolled back to
// 00006 and applied again, the same.
func TestMigrationEndpointsKeepsRows(t *testing.T) {
	upgradeKeepsRows(t, 6, upgradetest.AlarmColumnsV6, upgradetest.V6Params, upgradetest.AlarmsV6(t), true,
		func(ctx context.Context, s *Store, when string) {
			if es, err := s.ListEndpoints(ctx, ""); err != nil || len(es) != 0 {
				t.Errorf("%s: ListEndpoints = %v, %v; want none", when, es, err)
			}
		})
}

// Migration 00009 upgrades a database at 00008: every alarm and event reads back exactly
// as it was, the table is not rewritten (the lane is an index expression, no column),
// and alarms_lane_due_idx is there, valid, on the lane the fair claim names. Rolled back
// to 00008 and applied again, the same.
func TestMigrationLanesKeepsRows(t *testing.T) {
	upgradeKeepsRows(t, 8, sqlrow.AlarmColumns, sqlrow.AlarmParams, upgradetest.AlarmsV6(t), true,
		func(ctx context.Context, s *Store, when string) {
			var valid bool
			var def string
			if err := s.pool.QueryRow(ctx, `SELECT i.indisvalid, pg_get_indexdef(i.indexrelid) FROM pg_index i
				WHERE i.indexrelid = 'alarms_lane_due_idx'::regclass`).Scan(&valid, &def); err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			const want = "USING btree (((hashtext(owner) & 63)), next_fire_at) WHERE (status = 'active'::text)"
			if !valid || !strings.Contains(def, want) {
				t.Errorf("%s: alarms_lane_due_idx valid %t, %s; want valid, %s", when, valid, def, want)
			}
		})
}

// upgradeKeepsRows writes as (the columns cols, the first n values of each row) and
// their events into a schema at version from, opens it migrating to the latest, and
// checks that everything reads back as written, that the migration after from did not
// rewrite the alarms table when it should not (noRewrite), and then check;
// then it migrates down to from and up again, and checks the same.
func upgradeKeepsRows(t *testing.T, from int64, cols string, n int, as []domain.Alarm, noRewrite bool,
	check func(ctx context.Context, s *Store, when string)) {
	t.Helper()
	ctx := context.Background()
	u, db, p := migratedSchema(t, from)
	evs := upgradetest.Events(as)
	for _, a := range as {
		// A row of the current columns begins with the older ones.
		if _, err := db.ExecContext(ctx, `INSERT INTO alarms (`+cols+`) VALUES (`+dollars(n)+`)`,
			alarmRow(a)[:n]...); err != nil {
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
	if _, err := p.UpTo(ctx, from+1); err != nil {
		t.Fatalf("migrate to %d: %v", from+1, err)
	}
	if noRewrite && filenode() != before {
		t.Errorf("migration %d rewrote the alarms table; it should leave its rows where they are", from+1)
	}

	upgraded := func(when string) {
		t.Helper()
		s := openStore(t, u, Options{Migrate: true})
		upgradetest.CheckAlarms(t, func(owner, id string) (domain.Alarm, error) { return s.Get(ctx, ports.OwnedBy(owner), id) }, as)
		upgradetest.CheckEvents(t, func(owner, id string) ([]domain.Event, error) { return s.Events(ctx, ports.OwnedBy(owner), id, 0) }, as, evs)
		check(ctx, s, when)
		_ = s.Close() // before the schema changes under its cached statements
	}
	upgraded("upgraded")
	if _, err := p.DownTo(ctx, from); err != nil {
		t.Fatalf("migrate down to %d: %v", from, err)
	}
	upgraded("down and up again")
}

// alarmRow is a's values in sqlrow.AlarmColumns order, as database/sql binds them.
func alarmRow(a domain.Alarm) []any {
	return []any{
		a.ID, a.Owner, a.Label, string(a.Kind), timeArg(a.FireAt), a.CronExpr, a.Timezone, timeArg(a.NextFireAt),
		timeArg(a.ScheduledFor), a.ConversationID, a.WakeMessage, payloadArg(a.Payload), string(a.Status), string(a.Delivery),
		a.IdempotencyKey, a.MaxFailures, a.FailureCount, a.LastError, sqlstore.NullText(a.ClaimedBy), timeArg(a.ClaimedAt),
		timeArg(a.CreatedAt), timeArg(a.UpdatedAt), timeArg(a.LastFiredAt),
		sqlstore.NullText(sqlrow.EncodeSeries(a.Series)), a.FireCount, a.SkipStreak, a.PausedReason, timeArg(a.PausedUntil),
		a.Endpoint,
	}
}

// dollars is "$1, $2, ..., $n".
func dollars(n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = "$" + strconv.Itoa(i+1)
	}
	return strings.Join(ps, ", ")
}
