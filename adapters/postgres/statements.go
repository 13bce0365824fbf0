package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/adapters/internal/sqltext"
	"github.com/chronoshq/chronos/domain"
)

// engineSQL is PostgreSQL's text for the shared engine (sqlstore.Statements documents
// each statement's arguments). A now argument is the injected clock's time or NULL,
// which coalesce turns into the database clock.
var engineSQL = func() sqlstore.Statements {
	st := sqlstore.Standard.Numbered()
	st.NextDue = nextDueSQL
	st.DuePauses = duePausesSQL
	st.CountActive = countActiveSQL
	st.ExpiredAlarms = expiredAlarmsSQL

	st.GetAlarm = getSQL
	st.AlarmEvents = eventsSQL

	st.RevokeToken = `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, $1::timestamptz, now()) WHERE id = $2`

	st.DeleteExpiredSessions = `DELETE FROM ui_sessions WHERE hash IN
		(SELECT hash FROM ui_sessions WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`

	st.PutState = `INSERT INTO chronos_state (name, value, updated_at) VALUES ($1, $2, coalesce($3::timestamptz, now()))
		ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`
	st.InsertState = `INSERT INTO chronos_state (name, value, updated_at) VALUES ($1, $2, coalesce($3::timestamptz, now()))`
	st.SwapState = `UPDATE chronos_state SET value = $1, updated_at = coalesce($2::timestamptz, now())
		WHERE name = $3 AND value = $4`

	st.RegisterWorker = `INSERT INTO workers (` + sqlrow.WorkerColumns + `)
		VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()), coalesce($7::timestamptz, now()))
		ON CONFLICT (id) DO UPDATE SET
			host = excluded.host, pid = excluded.pid, version = excluded.version, stats = excluded.stats,
			started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`
	st.Heartbeat = `UPDATE workers SET heartbeat_at = coalesce($1::timestamptz, now()), stats = $2 WHERE id = $3`

	st.LinkCalendars = `INSERT INTO series_calendars (owner, calendar, series_id)
		SELECT x->>0, x->>1, x->>2 FROM jsonb_array_elements($1::jsonb) x`

	st.InsertAlarm = createSQL
	return st
}()

// newEngine is the shared engine on the store's pool.
func (s *Store) newEngine() sqlstore.Engine[pgtype.Timestamptz] {
	db := pgxDB{s.pool}
	return sqlstore.Engine[pgtype.Timestamptz]{
		Name: "postgres", SQL: &engineSQL, Read: db, Write: db,
		MapError: mapError,
		TimeArg:  func(t time.Time) any { return timeArg(t) },
		ToTime:   tsTime,
		NowArg:   s.nowArg,

		Now: func(ctx context.Context, db sqlstore.DB) (time.Time, error) {
			var now time.Time
			err := db.QueryRow(ctx, `SELECT coalesce($1::timestamptz, now())`, s.nowArg()).Scan(&now)
			return now.UTC(), err
		},
		PayloadArg: func(p []byte) any { return payloadArg(p) },

		ChooseByIDs: chooseByIDs, DeleteChosen: deleteEventsOf,
		TrimStep: s.trimStep, TakeLease: s.takeLease,
		OwnerPage: ownerPage, FilteredPage: filteredPage, Tags: tagSQL,

		Tx:         s.inTx,
		ScanAlarm:  scanAlarm,
		ScanAlarms: func(rows sqlrow.Rows, hint int) ([]domain.Alarm, error) { return newAlarmScanner().All(rows, hint) },
		LockAlarm: func(ctx context.Context, tx sqlstore.DB, id string) (domain.Alarm, time.Time, error) {
			return lockAlarm(ctx, tx, id, s.nowArg())
		},
		StoredAlarm: storedAlarm,
		WriteTransition: func(ctx context.Context, tx sqlstore.DB, t domain.Transition) error {
			_, err := tx.Exec(ctx, applySQL, applyArgs([]domain.Transition{t})...)
			return err
		},

		ApplySorted:  true,
		ApplyBatch:   s.applyBatch,
		InsertBatch:  s.insertBatch,
		AlarmsByKey:  s.alarmsByKey,
		InsertMany:   s.insertMany,
		InsertEvents: insertEvents,
	}
}

// inTx runs fn in one transaction, again when PostgreSQL rolled it back (retry).
func (s *Store) inTx(ctx context.Context, fn func(tx sqlstore.DB) error) error {
	return retry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return fn(pgxDB{tx}) })
	})
}

// lockAlarm locks the row and reads the clock in one round trip: the batch runs them in
// order, so the clock is read once the lock is held.
func lockAlarm(ctx context.Context, db sqlstore.DB, id string, now any) (domain.Alarm, time.Time, error) {
	batch := &pgx.Batch{}
	batch.Queue(lockAlarmSQL, id)
	batch.Queue(mutateNowSQL, now)
	br := db.(pgxDB).q.(pgx.Tx).SendBatch(ctx, batch)
	defer br.Close()
	a, err := scanAlarm(br.QueryRow())
	if err != nil {
		return domain.Alarm{}, time.Time{}, err
	}
	var at time.Time
	if err := br.QueryRow().Scan(&at); err != nil {
		return domain.Alarm{}, time.Time{}, err
	}
	return a, at.UTC(), br.Close()
}

// pgxQuerier is what a pgx pool, connection and transaction share.
type pgxQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// pgxDB is a pgx pool, connection or transaction as the engine's DB.
type pgxDB struct{ q pgxQuerier }

func (d pgxDB) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := d.q.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (d pgxDB) QueryRow(ctx context.Context, query string, args ...any) sqlrow.Scanner {
	return d.q.QueryRow(ctx, query, args...)
}

func (d pgxDB) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return d.q.Query(ctx, query, args...)
}

// getSQL finds the alarm by id alone; the engine checks the owner. With the owner in the
// WHERE too, a generic plan made on an empty table could take alarms_owner_status_id_idx
// (owner leading, id third) and walk every alarm of the owner for one row; by id alone
// the primary key is the only index that bounds it (TestPlansWithoutStatistics).
const getSQL = `SELECT ` + alarmColumns + ` FROM alarms WHERE id = $1`

// lockAlarmSQL locks the alarm by id alone (see getSQL).
const lockAlarmSQL = getSQL + ` FOR UPDATE`

// mutateNowSQL is read after the row lock is granted: clock_timestamp(), not now(),
// because now() is when the transaction began, possibly before it queued behind a
// dispatcher's write, and the owner's change must not be stamped earlier than the
// change it waited for.
const mutateNowSQL = `SELECT coalesce($1::timestamptz, clock_timestamp())`

// eventsSQL reads the alarm's owner, creation and first events in one statement (see
// sqlstore.Statements.AlarmEvents), by id alone as getSQL.
const eventsSQL = `
SELECT a.owner, a.created_at, a.fire_at, e.id, e.type, e.at, e.attempt, e.scheduled_for, e.worker, e.message
FROM alarms a
LEFT JOIN LATERAL (
	SELECT * FROM alarm_events WHERE alarm_id = a.id ORDER BY id LIMIT $2
) e ON true
WHERE a.id = $1
ORDER BY e.id`

// duePausesSQL walks alarms_paused_until_idx (paused_until WHERE paused_until IS NOT
// NULL) from its earliest entry and stops at now or once it has the limit, so its cost
// is what it returns, whatever else the table holds (TestPlansWithoutStatistics).
//
// The walk is a subquery behind OFFSET 0, which the planner neither flattens nor pushes
// conditions into, because "status = 'paused'" must not reach it: with that condition
// in the same WHERE, a plan made on a table with no paused alarm took it to
// alarms_rare_status_idx and sorted every paused alarm by paused_until, those paused
// without an end included (it did, on an analyzed table). Tested on the rows the walk
// yields, it skips nothing (the domain sets paused_until only on a paused alarm) and
// keeps the port's definition should a row say otherwise. The subquery's order carries
// to the outer ORDER BY, which therefore sorts nothing. By paused_until alone, the
// index's order: ids would make the walk sort what it read.
//
// $1 is the injected clock's time or NULL for the database clock, as in claimSQL.
const duePausesSQL = `SELECT id FROM (
		SELECT id, status, paused_until FROM alarms
		WHERE paused_until <= coalesce($1::timestamptz, now())
		ORDER BY paused_until
		OFFSET 0
	) walk
	WHERE status = 'paused'
	ORDER BY paused_until
	LIMIT $2`

// countActiveSQL counts the owner's alarms in domain.QuotaStatuses, up to $2: one index
// scan of alarms_owner_status_id_idx over the owner's ranges of those statuses, stopped
// by the LIMIT, index-only where the visibility map allows (TestCountActiveStopsAtItsLimit,
// TestPlansWithoutStatistics). One IN list, not a branch per status: a branch
// of its own for 'paused' would be a candidate for alarms_rare_status_idx (every owner's
// paused alarms).
var countActiveSQL = `SELECT count(*) FROM (SELECT 1 FROM alarms WHERE owner = $1 AND status IN (` +
	sqltext.StatusList(domain.QuotaStatuses) + `) LIMIT $2) counted`
