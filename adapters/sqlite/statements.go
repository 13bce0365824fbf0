package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/adapters/internal/sqltext"
	"github.com/chronoshq/chronos/domain"
)

// transitionSet is the SET list of a transition: exactly the mutable columns the domain
// decided (domain.Transition), and the lease kept (?12 true) or released.
const transitionSet = `UPDATE alarms SET
	status = ?1, next_fire_at = ?2, scheduled_for = ?3, failure_count = ?4, last_error = ?5,
	last_fired_at = ?6, fire_count = ?7, skip_streak = ?8, paused_reason = ?9, paused_until = ?10,
	updated_at = ?11,
	claimed_by = CASE WHEN ?12 THEN claimed_by END,
	claimed_at = CASE WHEN ?12 THEN claimed_at END
	WHERE id = ?13`

// statements are prepared once on the writer and reused by every transaction (through
// tx.StmtContext), the hot path of a dispatcher applying batches.
//
// The batch statements (Apply's UPDATE of many transitions, the INSERT of many events)
// come in one text per size bucket: 1, 2, 4, ... maxBatchRows rows, a batch padded with
// rows of NULLs that match and insert nothing up to its bucket, so none is parsed again
// (docs/benchmarks.md). They are prepared at Open because the writer pool has one
// connection: preparing one later, while a transaction holds it, would wait for itself.
type statements struct {
	// applyFenced applies a transition only while the row carries the worker's lease.
	// IS, not =, so a fence naming "no lease" compares correctly with NULL.
	applyFenced *sql.Stmt
	// applyUnfenced applies an owner action, already serialized by the write lock.
	applyUnfenced *sql.Stmt
	// insertAlarm inserts an applied transition's notice.
	insertAlarm *sql.Stmt
	// claim is ClaimDue's statement, run hundreds of times a second at a steady rate.
	claim *sql.Stmt
	// fairPick and claimIDs are a fair claim's choice and lease (see fair.go).
	fairPick, claimIDs *sql.Stmt
	// extendLease is ExtendLease's fenced UPDATE.
	extendLease *sql.Stmt
	// applyBatch[i] applies up to 1<<i transitions (see applyBatchSQL).
	applyBatch [batchBuckets]*sql.Stmt
	// insertEvents[i] appends up to 1<<i events (see insertEventsSQL).
	insertEvents [batchBuckets]*sql.Stmt
	// createBatch[i] inserts up to 1<<i alarms, skipping conflicts (see createBatchSQL).
	createBatch [batchBuckets]*sql.Stmt
	// byKey reads the owner's alarm with an idempotency key.
	byKey *sql.Stmt
	// deleteEventsOf and deleteAlarms delete alarms and their events by id, for
	// retention and the admin's deletes (see deleteWithEvents).
	deleteEventsOf, deleteAlarms *sql.Stmt

	// byText are the statements the engine runs by their text in a write transaction
	// (sqlstore.SQLTx.Exec): Apply's notice insert and ExtendLease's update.
	byText map[string]*sql.Stmt
}

// batchBuckets sizes, powers of two up to maxBatchRows: ten statements each.
const (
	batchBuckets = 10
	maxBatchRows = 1 << (batchBuckets - 1) // 512: 16 variables a transition, 32 an alarm (alarmParams), far below SQLite's 32766
)

// bucketIndex is the index of the smallest bucket that holds n rows (1 <= n <= maxBatchRows):
// the statement of sqltext.PaddedSize(n) rows.
func bucketIndex(n int) int { return bits.TrailingZeros(uint(sqltext.PaddedSize(n))) }

func prepare(ctx context.Context, db *sql.DB) (st statements, err error) {
	defer func() {
		if err != nil {
			st.close()
			st, err = statements{}, mapError(fmt.Errorf("prepare: %w", err))
		}
	}()
	type prepared struct {
		stmt **sql.Stmt
		text string
	}
	all := []prepared{
		{&st.applyFenced, transitionSet + ` AND claimed_by IS ?14 AND claimed_at IS ?15`},
		{&st.applyUnfenced, transitionSet},
		{&st.insertAlarm, insertAlarmSQL},
		{&st.claim, claimSQL},
		{&st.fairPick, fairPickSQL},
		{&st.claimIDs, claimIDsSQL},
		{&st.extendLease, extendLeaseSQL},
		{&st.byKey, byKeySQL},
		{&st.deleteEventsOf, deleteEventsOfSQL},
		{&st.deleteAlarms, deleteAlarmsSQL},
	}
	for i := range batchBuckets {
		all = append(all, prepared{&st.applyBatch[i], applyBatchSQL(1 << i)},
			prepared{&st.insertEvents[i], insertEventsSQL(1 << i)}, prepared{&st.createBatch[i], createBatchSQL(1 << i)})
	}
	for _, p := range all {
		if *p.stmt, err = db.PrepareContext(ctx, p.text); err != nil {
			return
		}
	}
	st.byText = map[string]*sql.Stmt{insertAlarmSQL: st.insertAlarm, extendLeaseSQL: st.extendLease}
	return st, nil
}

func (st statements) close() error {
	var errs []error
	all := append([]*sql.Stmt{st.applyFenced, st.applyUnfenced, st.insertAlarm, st.claim, st.fairPick, st.claimIDs, st.extendLease, st.byKey,
		st.deleteEventsOf, st.deleteAlarms}, st.applyBatch[:]...)
	all = append(all, st.createBatch[:]...)
	for _, s := range append(all, st.insertEvents[:]...) {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// valuesRows is "(?, ?, ...), (?, ?, ...)": rows rows of cols variables.
func valuesRows(rows, cols int) string { return sqltext.ValuesRows(rows, cols) }

// placeholders is "?, ?, ?" with n marks.
func placeholders(n int) string { return sqltext.Placeholders(n) }

// listSQLs are List's four statements (status filter or not, cursor or not) and
// adminListSQLs the admin's pages, each walk with and without a cursor: the reader runs
// them prepared (sqlstore.Prepared), as parsing the long ones was most of a page's time.
var (
	listSQLs      = [2][2]string{{listSQL(false, false), listSQL(false, true)}, {listSQL(true, false), listSQL(true, true)}}
	adminListSQLs = func() (q [adminWalks][2]string) {
		for walk := range adminWalks {
			q[walk] = [2]string{adminListSQL(walk, false), adminListSQL(walk, true)}
		}
		return q
	}()
)

// readStatements are CountAlarms' reads, prepared once on the reader pool.
type readStatements struct {
	// countStatuses and countDue are CountAlarms' two reads.
	countStatuses, countDue *sql.Stmt
}

func prepareReads(ctx context.Context, db *sql.DB) (r readStatements, err error) {
	defer func() {
		if err != nil {
			r.close()
			r, err = readStatements{}, mapError(fmt.Errorf("prepare: %w", err))
		}
	}()
	if r.countStatuses, err = db.PrepareContext(ctx, countStatusesSQL); err != nil {
		return
	}
	if r.countDue, err = db.PrepareContext(ctx, countDueSQL); err != nil {
		return
	}
	return r, nil
}

func (r readStatements) close() {
	all := []*sql.Stmt{r.countStatuses, r.countDue}
	for _, st := range all {
		if st != nil {
			_ = st.Close()
		}
	}
}

// engineSQL is SQLite's text for the shared engine (sqlstore.Statements documents each
// statement's arguments). Times are unix milliseconds; now is always an argument.
var engineSQL = func() sqlstore.Statements {
	st := sqlstore.Standard
	st.NextDue = nextDueSQL
	st.DuePauses = duePausesSQL
	st.CountActive = countActiveSQL
	st.ExpiredAlarms = expiredAlarmsSQL

	st.AlarmEvents = `SELECT a.owner, a.created_at, a.fire_at, e.id, e.type, e.at, e.attempt, e.scheduled_for, e.worker, e.message
		FROM alarms a LEFT JOIN (SELECT * FROM alarm_events WHERE alarm_id = ?1 ORDER BY id LIMIT ?2 + 0) e ON true
		WHERE a.id = ?1
		ORDER BY e.id`

	st.RevokeToken = `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, ?1) WHERE id = ?2`

	st.DeleteExpiredSessions = `DELETE FROM ui_sessions WHERE hash IN
		(SELECT hash FROM ui_sessions WHERE expires_at <= ? ORDER BY expires_at LIMIT ? + 0)`

	// A write transaction holds the database's lock: no FOR UPDATE, which SQLite has not.
	st.LockEndpoint = `SELECT ` + sqlrow.EndpointColumns + ` FROM endpoints WHERE owner = ? AND name = ?`

	st.LockCalendar = `SELECT ` + sqlrow.CalendarColumns + ` FROM calendars WHERE owner = ? AND name = ?`
	st.LinkCalendars = `INSERT INTO series_calendars (owner, calendar, series_id)
		SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?)`

	// The export walks the primary key (alarms) and alarm_events_alarm (alarm_id, id).
	st.ExportAlarms = `SELECT ` + alarmColumns + ` FROM alarms WHERE id > ? ORDER BY id LIMIT ? + 0`
	st.ExportEvents = `SELECT id, ` + sqlrow.EventRowColumns + ` FROM alarm_events
		WHERE alarm_id >= ?1 AND alarm_id <= ?2 AND (alarm_id > ?3 OR id > ?4)
		ORDER BY alarm_id, id LIMIT ?5 + 0`
	st.ExportCalendars = `SELECT ` + sqlrow.CalendarColumns + ` FROM calendars
		WHERE owner >= ?1 AND (owner > ?2 OR name > ?3) ORDER BY owner, name LIMIT ?4 + 0`

	st.PutState = `INSERT INTO chronos_state (name, value, updated_at) VALUES (?1, ?2, ?3)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`
	st.InsertState = `INSERT INTO chronos_state (name, value, updated_at) VALUES (?1, ?2, ?3)`
	st.SwapState = `UPDATE chronos_state SET value = ?1, updated_at = ?2 WHERE name = ?3 AND value = ?4`

	st.RegisterWorker = `INSERT INTO workers (` + sqlrow.WorkerColumns + `)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
		ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, version = excluded.version,
			stats = excluded.stats, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`
	st.Heartbeat = `UPDATE workers SET heartbeat_at = ?, stats = ? WHERE id = ?`

	st.InsertAlarm = insertAlarmSQL
	st.ExtendLease = extendLeaseSQL
	return st
}()

// preparedTexts is how the engine's statements are kept prepared: every text from its
// first call, as SQLite parses each unprepared text anew; at most 1,024 per pool (the
// store sends a few hundred), so no flow of new texts can grow a process without bound.
var preparedTexts = sqlstore.PreparedOptions{Max: 1024, After: 1}

// newEngine is the shared engine on the store's pools: reads on the reader, writes
// outside a transaction on the writer, every statement prepared (preparedTexts).
func (s *Store) newEngine() sqlstore.Engine[sql.NullInt64] {
	return sqlstore.Engine[sql.NullInt64]{
		Name: "sqlite", SQL: &engineSQL,
		Read: sqlstore.Prepared(s.reader, preparedTexts), Write: sqlstore.Prepared(s.writer, preparedTexts),
		MapError: mapError,
		TimeArg:  func(t time.Time) any { return toDB(trunc(t)) },
		ToTime:   fromDB,
		NowArg:   func() any { return toDB(s.now()) },

		Now: func(context.Context, sqlstore.DB) (time.Time, error) { return s.now(), nil },
		// The payload column is never NULL: an empty payload is zero bytes.
		PayloadArg: func(p []byte) any {
			if p == nil {
				return []byte{}
			}
			return p
		},
		LaneArg: func(owner string) any { return laneOf(owner) },

		DeleteChosen: s.deleteWithEvents, TrimStep: s.trimStep, TakeLease: s.takeLease,
		OwnerPage: ownerPage, FilteredPage: filteredPage, Tags: tagSQL,

		Tx:          s.inTx,
		ScanAlarm:   scanAlarm,
		ScanAlarms:  func(rows sqlrow.Rows, hint int) ([]domain.Alarm, error) { return newAlarmScanner().All(rows, hint) },
		StoredAlarm: storedAlarm,
		// BEGIN IMMEDIATE holds the write lock from the first statement: the read is
		// locked, and nothing else writes before the transaction ends.
		LockAlarm: func(ctx context.Context, tx sqlstore.DB, id string) (domain.Alarm, time.Time, error) {
			a, err := scanAlarm(tx.QueryRow(ctx, `SELECT `+alarmColumns+` FROM alarms WHERE id = ?`, id))
			return a, s.now(), err
		},
		WriteTransition: func(ctx context.Context, db sqlstore.DB, t domain.Transition) error {
			tx := db.(sqlstore.SQLTx).Tx
			ok, err := applyTransition(ctx, tx.StmtContext(ctx, s.stmts.applyUnfenced), t)
			if err != nil {
				return err
			}
			if !ok { // impossible while we hold the write lock; refuse rather than guess
				return fmt.Errorf("alarm %q vanished during an update under the write lock", t.AlarmID)
			}
			return s.insertEvents(ctx, tx, t.Events)
		},

		Keep:        trunc,
		ApplyBatch:  s.applyBatch,
		InsertBatch: s.insertBatch,
		AlarmsByKey: s.alarmsByKey,
		InsertMany:  s.insertMany,
		InsertEvents: func(ctx context.Context, tx sqlstore.DB, es []domain.Event) error {
			return s.insertEvents(ctx, tx.(sqlstore.SQLTx).Tx, es)
		},
	}
}

// inTx is write for the engine: fn's transaction is an sqlstore.SQLTx, whose Exec runs
// the statements the engine names by text (statements.byText) prepared on the writer.
func (s *Store) inTx(ctx context.Context, fn func(tx sqlstore.DB) error) error {
	return sqlstore.EngineTx(s.write, s.stmts.byText)(ctx, fn)
}

// duePausesSQL walks alarms_paused_until (paused_until WHERE paused_until IS NOT NULL)
// from its earliest entry and stops at now or once it has the limit, so its cost is
// what it returns (TestDuePausesPlan). The unary + keeps the status term from
// constraining an index: an equality on status would otherwise draw SQLite to
// alarms_rare_status (status, id), every paused alarm, those paused without an end
// included, sorted by paused_until. Tested on the rows the walk yields, it skips
// nothing (the domain sets paused_until only on a paused alarm) and keeps the port's
// definition should a row say otherwise.
const duePausesSQL = `SELECT id FROM alarms
	WHERE paused_until <= ?1 AND +status = 'paused'
	ORDER BY paused_until
	LIMIT ?2 + 0`

// countActiveSQL counts the owner's alarms in domain.QuotaStatuses, up to ?2: a walk of
// the owner's ranges of those statuses in alarms_owner_status (a covering index: no
// table row is read), stopped by the LIMIT (TestCountActivePlan).
var countActiveSQL = `SELECT count(*) FROM (SELECT 1 FROM alarms WHERE owner = ?1 AND status IN (` +
	sqltext.StatusList(domain.QuotaStatuses) + `) LIMIT ?2 + 0)`
