// Package upgradetest is the SQL stores' tests that a database in use survives an
// upgrade: what a database at an earlier schema holds (alarms of both kinds in every
// status, with their histories, tokens, workers, named state), the checks that a store
// at the latest schema reads it back unchanged, and the scenarios that run them on a
// store's Database, each a migration's upgrade and its way down and up again. Each store
// writes the rows with its own SQL and migrations; the rows, the checks and the
// scenarios are shared. Imported by tests only.
package upgradetest

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
)

// AlarmColumnsV5 are the columns of alarms up to migration 00005: the first V5Params
// of sqlrow.AlarmColumns, so the first V5Params values of a store's row of arguments are
// a v5 row.
var AlarmColumnsV5 = firstColumns(V5Params)

// V5Params is how many values a row of AlarmColumnsV5 binds.
const V5Params = 23

// AlarmColumnsV6 are the columns of alarms up to migration 00006: the v5 ones and a
// series' options and state.
var AlarmColumnsV6 = firstColumns(V6Params)

// V6Params is how many values a row of AlarmColumnsV6 binds.
const V6Params = 28

// AlarmColumnsV7 are the columns of alarms from migration 00007 up to 00014: the v6
// ones and the endpoint (00015 adds the trace context).
var AlarmColumnsV7 = firstColumns(V7Params)

// V7Params is how many values a row of AlarmColumnsV7 binds.
const V7Params = 29

// firstColumns is the first n columns of sqlrow.AlarmColumns.
func firstColumns(n int) string {
	return strings.Join(strings.Split(sqlrow.AlarmColumns, ",")[:n], ",")
}

// Now is when the rows were written. Every time in them is a whole millisecond, which
// every store keeps exactly, so a store's read compares equal without its precision.
var Now = time.Date(2030, time.June, 1, 12, 0, 0, 0, time.UTC)

// Alarms are a v5 database's alarms: once (active, fired, failed, cancelled) and cron
// (active and leased, paused), of two owners, with and without an idempotency key,
// errors and fires. Their
// series options and state are zero: that is how an upgraded row must read.
func Alarms(t testing.TB) []domain.Alarm {
	t.Helper()
	at := func(d time.Duration) time.Time { return Now.Add(d) }
	build := func(id string, s domain.Spec) domain.Alarm {
		a, err := domain.NewAlarm(id, s, Now.Add(-24*time.Hour), domain.Defaults{MaxFailures: 5})
		if err != nil {
			t.Fatalf("upgradetest: NewAlarm(%s): %v", id, err)
		}
		return a
	}
	once := func(id, owner string, due time.Duration) domain.Alarm {
		fire := at(due)
		return build(id, domain.Spec{Owner: owner, Kind: domain.KindOnce, FireAt: &fire, Label: "once " + id,
			Payload: []byte(`{"n": 1, "s": "é"}`), WakeMessage: "wake up"})
	}
	cron := func(id, owner string) domain.Alarm {
		return build(id, domain.Spec{Owner: owner, Kind: domain.KindCron, CronExpr: "*/5 * * * *", Timezone: "Europe/Paris",
			Label: "cron " + id, Payload: []byte(`[1,2]`), ConversationID: "conv-" + id})
	}

	active := once("0190f0c0-0000-7000-8000-000000000001", "alice", time.Hour)
	active.IdempotencyKey = "order-1"

	fired := once("0190f0c0-0000-7000-8000-000000000002", "alice", -time.Hour)
	fired.Status, fired.LastFiredAt, fired.UpdatedAt = domain.StatusFired, at(-time.Hour+1500*time.Millisecond), at(-time.Hour+1500*time.Millisecond)
	fired.FailureCount, fired.LastError = 1, "HTTP 502"

	cancelled := once("0190f0c0-0000-7000-8000-000000000003", "alice", 2*time.Hour)
	cancelled.Status, cancelled.UpdatedAt = domain.StatusCancelled, at(-time.Minute)

	leased := cron("0190f0c0-0000-7000-8000-000000000004", "alice")
	leased.NextFireAt, leased.ScheduledFor = at(-5*time.Minute), at(-5*time.Minute)
	leased.ClaimedBy, leased.ClaimedAt = "node-1", at(-4*time.Minute+250*time.Millisecond)
	leased.LastFiredAt = at(-10 * time.Minute)

	paused := cron("0190f0c0-0000-7000-8000-000000000005", "bob")
	paused.Status, paused.UpdatedAt = domain.StatusPaused, at(-30*time.Minute)

	failed := once("0190f0c0-0000-7000-8000-000000000006", "bob", -2*time.Hour)
	failed.Status, failed.FailureCount, failed.LastError, failed.UpdatedAt = domain.StatusFailed, 5, "HTTP 410 Gone", at(-3*time.Minute)
	failed.Delivery = domain.AtMostOnce

	return []domain.Alarm{active, fired, cancelled, leased, paused, failed}
}

// AlarmsV6 are a v6 database's alarms: those of Alarms, and series with options and
// state (a paused one with a note and an end, one counting fires and skips). None names
// an endpoint: that is how an upgraded row must read.
func AlarmsV6(t testing.TB) []domain.Alarm {
	t.Helper()
	as := Alarms(t)
	series := func(id string) domain.Alarm {
		a, err := domain.NewAlarm(id, domain.Spec{Owner: "carol", Kind: domain.KindCron, CronExpr: "0 9 * * 1-5", Timezone: "Europe/Paris",
			Label: "series " + id, Payload: []byte(`{"v":6}`)}, Now.Add(-48*time.Hour), domain.Defaults{MaxFailures: 3})
		if err != nil {
			t.Fatalf("upgradetest: NewAlarm(%s): %v", id, err)
		}
		return a
	}
	counting := series("0190f0c0-0000-7000-8000-000000000007")
	counting.Series = domain.Series{Misfire: domain.MisfireCatchUp, CatchUpLimit: 20, CatchUpWindow: 36 * time.Hour,
		MaxConsecutiveSkips: 4, StartAt: Now.Add(-72 * time.Hour), EndAt: Now.Add(90 * 24 * time.Hour), MaxFires: 500, JitterSeconds: 30}
	counting.FireCount, counting.SkipStreak, counting.UpdatedAt = 41, 2, Now.Add(-time.Hour)

	paused := series("0190f0c0-0000-7000-8000-000000000008")
	paused.Series = domain.Series{Misfire: domain.MisfireSkip}
	paused.Status, paused.PausedReason, paused.PausedUntil = domain.StatusPaused, "maintenance window", Now.Add(2*time.Hour)
	paused.FireCount, paused.UpdatedAt = 7, Now.Add(-10*time.Minute)
	return append(as, counting, paused)
}

// Events are the histories of as: the created event of each, and for the fired and
// the failed alarms their attempts.
func Events(as []domain.Alarm) []domain.Event {
	var evs []domain.Event
	for _, a := range as {
		evs = append(evs, domain.Event{AlarmID: a.ID, Type: domain.EventCreated, At: a.CreatedAt, ScheduledFor: a.ScheduledFor})
		retry := domain.Event{AlarmID: a.ID, Type: domain.EventRetryScheduled, At: a.UpdatedAt.Add(-time.Second), Attempt: 1,
			ScheduledFor: a.ScheduledFor, Worker: "node-1", Message: "HTTP 502"}
		switch a.Status {
		case domain.StatusFired:
			evs = append(evs, retry, domain.Event{AlarmID: a.ID, Type: domain.EventFired, At: a.UpdatedAt, Attempt: 2,
				ScheduledFor: a.ScheduledFor, Worker: "node-2"})
		case domain.StatusFailed:
			evs = append(evs, retry, domain.Event{AlarmID: a.ID, Type: domain.EventFailed, At: a.UpdatedAt, Attempt: 2,
				ScheduledFor: a.ScheduledFor, Worker: "node-2", Message: a.LastError})
		}
	}
	return evs
}

// CheckAlarms fails t unless get reads every alarm of want exactly as it was written:
// with the series options and state it was written with (none before 00006), and no
// endpoint.
func CheckAlarms(t testing.TB, get func(owner, id string) (domain.Alarm, error), want []domain.Alarm) {
	t.Helper()
	for _, w := range want {
		got, err := get(w.Owner, w.ID)
		if err != nil {
			t.Errorf("alarm %s after the upgrade: %v", w.ID, err)
			continue
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("alarm %s after the upgrade:\n got %+v\nwant %+v", w.ID, got, w)
		}
	}
}

// CheckEvents fails t unless events reads each alarm's history of want, in order, as
// it was written (the store's event ids aside).
func CheckEvents(t testing.TB, events func(owner, id string) ([]domain.Event, error), as []domain.Alarm, want []domain.Event) {
	t.Helper()
	for _, a := range as {
		var mine []domain.Event
		for _, e := range want {
			if e.AlarmID == a.ID {
				mine = append(mine, e)
			}
		}
		got, err := events(a.Owner, a.ID)
		if err != nil {
			t.Errorf("events of %s after the upgrade: %v", a.ID, err)
			continue
		}
		for i := range got {
			got[i].ID = 0
		}
		if !reflect.DeepEqual(got, mine) {
			t.Errorf("events of %s after the upgrade:\n got %+v\nwant %+v", a.ID, got, mine)
		}
	}
}
