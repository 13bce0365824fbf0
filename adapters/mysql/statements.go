package mysql

import (
	"context"
	"database/sql"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/adapters/internal/sqltext"
	"github.com/chronoshq/chronos/domain"
)

// engineSQL is MySQL's and MariaDB's text for the shared engine (sqlstore.Statements
// documents each statement's arguments). A now argument is the injected clock's time
// or NULL, which COALESCE turns into the database clock.
//
// REPLACE rather than INSERT ... ON DUPLICATE KEY UPDATE where a row is wholly new: the
// VALUES() form is deprecated on MySQL and its replacement (row aliases) does not exist
// on MariaDB.
var engineSQL = func() sqlstore.Statements {
	st := sqlstore.Standard
	st.NextDue = nextDueSQL
	st.DuePauses = duePausesSQL
	st.CountActive = countActiveSQL
	st.ExpiredAlarms = expiredAlarmsSQL

	// One row per stored event, the first limit of them, or one row of NULL events.
	st.AlarmEvents = `SELECT a.owner, a.created_at, a.fire_at, e.id, e.type, e.at, e.attempt, e.scheduled_for, e.worker, e.message
		FROM alarms a LEFT JOIN alarm_events e ON e.alarm_id = a.id
		WHERE a.id = ?
		ORDER BY e.id
		LIMIT ?`

	// clientFoundRows makes RowsAffected count the matched row even when nothing changed.
	st.RevokeToken = `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?, UTC_TIMESTAMP(6)) WHERE id = ?`

	st.DeleteExpiredSessions = `DELETE FROM ui_sessions WHERE expires_at <= ? ORDER BY expires_at LIMIT ?`

	st.PutState = `REPLACE INTO chronos_state (name, value, updated_at) VALUES (?, ?, COALESCE(?, UTC_TIMESTAMP(6)))`
	st.InsertState = `INSERT INTO chronos_state (name, value, updated_at) VALUES (?, ?, COALESCE(?, UTC_TIMESTAMP(6)))`
	// Compared as bytes: a collation that pads or folds would take a different value for old.
	st.SwapState = `UPDATE chronos_state SET value = ?, updated_at = COALESCE(?, UTC_TIMESTAMP(6))
		WHERE name = ? AND CAST(value AS BINARY) = CAST(? AS BINARY)`

	st.RegisterWorker = `REPLACE INTO workers (` + sqlrow.WorkerColumns + `)
		VALUES (?, ?, ?, ?, ?, COALESCE(?, UTC_TIMESTAMP(6)), COALESCE(?, UTC_TIMESTAMP(6)))`
	st.Heartbeat = `UPDATE workers SET heartbeat_at = COALESCE(?, UTC_TIMESTAMP(6)), stats = ? WHERE id = ?`

	// Pinned: on a small table MariaDB joins alarms through a buffer over alarms_lane_due
	// and sorts, where each link row's series is one primary key lookup.
	st.CalendarUser = `SELECT sc.series_id FROM series_calendars sc
		STRAIGHT_JOIN alarms a FORCE INDEX (PRIMARY) ON a.id = sc.series_id
		WHERE sc.owner = ? AND sc.calendar = ? AND a.status IN ('active', 'paused')
		ORDER BY sc.series_id LIMIT 1`
	st.LinkCalendars = `INSERT INTO series_calendars (owner, calendar, series_id)
		SELECT j.o, j.c, j.s FROM JSON_TABLE(?, '$[*]' COLUMNS (
			o VARCHAR(255) PATH '$[0]', c VARCHAR(64) PATH '$[1]', s VARCHAR(255) PATH '$[2]')) AS j`

	st.InsertAlarm = insertAlarmSQL
	st.ExtendLease = extendLeaseSQL
	return st
}()

// newEngine is the shared engine on the store's pool.
func (s *Store) newEngine() sqlstore.Engine[sql.NullTime] {
	db := sqlstore.Std(s.db)
	return sqlstore.Engine[sql.NullTime]{
		Name: "mysql", SQL: &engineSQL, Read: s.reads, Write: db,
		MapError: mapError,
		TimeArg:  timeArg,
		ToTime:   sqlrow.NullTime,
		NowArg:   s.injectedNow,

		Now: func(ctx context.Context, db sqlstore.DB) (time.Time, error) {
			if s.clock != nil {
				return micro(s.clock.Now()), nil
			}
			var now time.Time
			err := db.QueryRow(ctx, "SELECT UTC_TIMESTAMP(6)").Scan(&now)
			return now.UTC(), err
		},
		PayloadArg: func(p []byte) any { return payloadArg(p) },

		ChooseByIDs: chooseByIDs, DeleteChosen: deleteWithEvents,
		TrimStep: s.trimStep, TakeLease: s.takeLease,
		OwnerPage: ownerPage, FilteredPage: filteredPage, Tags: tagSQL,

		Tx:          s.engineTx,
		ScanAlarm:   scanAlarm,
		ScanAlarms:  func(rows sqlrow.Rows, hint int) ([]domain.Alarm, error) { return newAlarmScanner().All(rows, hint) },
		StoredAlarm: storedAlarm,
		// READ COMMITTED: the locking read, then the store's now once the lock is held
		// (so it is never earlier than the write that came before).
		LockAlarm: func(ctx context.Context, db sqlstore.DB, id string) (domain.Alarm, time.Time, error) {
			tx := db.(sqlstore.SQLTx).Tx
			a, err := scanAlarm(tx.QueryRowContext(ctx, `SELECT `+alarmColumns+` FROM alarms WHERE id = ? FOR UPDATE`, id))
			if err != nil {
				return domain.Alarm{}, time.Time{}, err
			}
			now, err := s.now(ctx, tx)
			return a, now, err
		},
		WriteTransition: func(ctx context.Context, db sqlstore.DB, t domain.Transition) error {
			return writeTransitions(ctx, s.batch(db.(sqlstore.SQLTx).Tx), []domain.Transition{t}, t.Events)
		},

		Keep:        micro,
		NullKeys:    true,
		ApplySorted: true,
		ApplyBatch:  s.applyBatch,
		InsertBatch: s.insertBatch,
		InsertMany: func(ctx context.Context, tx sqlstore.DB, as []domain.Alarm) error {
			return s.insertAll(ctx, s.batch(tx.(sqlstore.SQLTx).Tx), as, false)
		},
		InsertEvents: func(ctx context.Context, tx sqlstore.DB, es []domain.Event) error {
			return insertEvents(ctx, s.batch(tx.(sqlstore.SQLTx).Tx), es)
		},
	}
}

// engineTx is inTx for the engine: fn's transaction is an sqlstore.SQLTx, whose *sql.Tx
// runs the prepared batch statements. Those a transaction queued are prepared once it is
// over (prepared.go).
func (s *Store) engineTx(ctx context.Context, fn func(tx sqlstore.DB) error) error {
	defer s.stmts.prepareQueued(ctx)
	return sqlstore.EngineTx(s.inTx, nil)(ctx, fn)
}

// duePausesSQL walks alarms_paused_until from its first entry and stops at now or once
// it has the limit, so its cost is what it returns (TestDuePausesWalksItsIndex). The
// range "paused_until <= ?" starts after the index's NULLs: the alarms paused without
// an end and every alarm that is not paused. FORCE INDEX pins it, as the list pages are
// pinned: left free, MariaDB 10.11 also read every paused alarm's entry in the due
// index (status leads it) to build a rowid filter for the walk, and another plan could
// walk that range and sort it. InnoDB's entries end with the primary key, so the rows come
// in (paused_until, id) order without a sort. status is checked on each row the walk
// yields: the domain sets paused_until only on a paused alarm, so the check skips
// nothing, and it keeps the port's definition should a row say otherwise. The first
// argument is the injected clock's time or NULL for the database clock (injectedNow).
const duePausesSQL = `SELECT id FROM alarms FORCE INDEX (alarms_paused_until)
	WHERE paused_until <= COALESCE(?, UTC_TIMESTAMP(6)) AND status = 'paused'
	ORDER BY paused_until
	LIMIT ?`

// countActiveSQL counts the owner's alarms in domain.QuotaStatuses, up to the second
// argument: a range of alarms_owner_status_list (owner, status, id) per status, read
// from the index alone and stopped by the LIMIT (TestCountActiveWalksItsIndex). FORCE
// INDEX pins it, as the list pages are pinned: the walk is the same one a list of a
// status makes, and a plan of the primary key filtered on owner would read the table.
var countActiveSQL = `SELECT COUNT(*) FROM (SELECT 1 FROM alarms FORCE INDEX (alarms_owner_status_list)
	WHERE owner = ? AND status IN (` + sqltext.StatusList(domain.QuotaStatuses) + `) LIMIT ?) counted`
