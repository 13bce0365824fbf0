package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/ports"
)

// expiredAlarmsSQL chooses a batch of expired terminal alarms, walking the partial index
// alarms_terminal from the oldest change. The write lock is held for the whole
// transaction, so nothing changes between the choice and the deletes; a leased row is
// never taken.
const expiredAlarmsSQL = `SELECT id FROM alarms
	WHERE status IN ('fired', 'cancelled', 'failed') AND updated_at < ?1 AND claimed_by IS NULL
	ORDER BY updated_at LIMIT ?2 + 0`

// deleteEventsOfSQL and deleteAlarmsSQL take the ids as one JSON array (?1), so each is
// one statement prepared once, whatever the number of ids, far from the variable limit.
// Each probes its index (alarm_events_alarm, the primary key) once per id
// (TestAdminPlans).
const (
	deleteEventsOfSQL = `DELETE FROM alarm_events WHERE alarm_id IN (SELECT value FROM json_each(?1))`
	deleteAlarmsSQL   = `DELETE FROM alarms WHERE id IN (SELECT value FROM json_each(?1))`
)

// deleteWithEvents is DeleteChosen: it deletes the alarms with these ids (unknown ones
// are skipped, so DeleteAlarms chooses none first) and all their events inside the
// write transaction, and counts both.
//
// The events go first, explicitly, though this schema's foreign key would cascade them:
// so they are counted, and so the store does what the others do whether or not
// foreign_keys is on. The other stores, which have no such key, delete the alarm rows
// first and then the events of exactly the ids deleted, so that no concurrent writer
// adds an event in between (ports.RetentionStore). Here the transaction holds the write
// lock from its first statement to its commit: no writer, in any process, runs in
// between, and the events deleted are exactly those of the alarms deleted (the key
// admits no event without its alarm), in either order.
func (s *Store) deleteWithEvents(ctx context.Context, db sqlstore.DB, ids []string) (ports.Deleted, error) {
	tx := db.(sqlstore.SQLTx).Tx
	list, err := json.Marshal(ids)
	if err != nil {
		return ports.Deleted{}, fmt.Errorf("delete alarms: %w", err)
	}
	events, err := sqlrow.Affected(tx.StmtContext(ctx, s.stmts.deleteEventsOf).ExecContext(ctx, string(list)))
	if err != nil {
		return ports.Deleted{}, err
	}
	alarms, err := sqlrow.Affected(tx.StmtContext(ctx, s.stmts.deleteAlarms).ExecContext(ctx, string(list)))
	return ports.Deleted{Alarms: int(alarms), Events: int(events)}, err
}

// trimEventsSQL deletes, for the alarms after the cursor ($1, $2 of them), their events
// older than $3 or beyond the $4 newest ($4 > 0). Each alarm's bound is found through
// alarm_events_alarm backwards, reading at most $4+1 entries.
const trimEventsSQL = `DELETE FROM alarm_events WHERE id IN (
	SELECT e.id FROM (SELECT id FROM alarms WHERE id > ?1 ORDER BY id LIMIT ?2 + 0) a
	JOIN alarm_events e ON e.alarm_id = a.id
	WHERE e.at < ?3 OR (?4 > 0 AND e.id <= (
		SELECT x.id FROM alarm_events x WHERE x.alarm_id = a.id ORDER BY x.id DESC LIMIT 1 OFFSET ?4)))`

// trimStep is TrimStep, in one write transaction: the alarms it covers, then
// trimEventsSQL.
func (s *Store) trimStep(ctx context.Context, p ports.TrimEvents) (events int, last string, covered int, err error) {
	err = s.inTx(ctx, func(tx sqlstore.DB) error {
		var lastID sql.NullString
		if err := tx.QueryRow(ctx, `SELECT max(id), count(*) FROM (SELECT id FROM alarms WHERE id > ?1 ORDER BY id LIMIT ?2 + 0)`,
			p.After, p.Alarms).Scan(&lastID, &covered); err != nil {
			return err
		}
		n, err := tx.Exec(ctx, trimEventsSQL, p.After, p.Alarms, toDB(trunc(p.Before)), p.Keep)
		events, last = int(n), lastID.String
		return err
	})
	return events, last, covered, err
}

// acquireLeaseSQL takes a free or expired lease, or renews the holder's own: ?3 the new
// expiry, ?4 now. The write lock serialises callers, across processes too.
const acquireLeaseSQL = `INSERT INTO chronos_leases (name, holder, expires_at) VALUES (?1, ?2, ?3)
	ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
	WHERE chronos_leases.holder = excluded.holder OR chronos_leases.expires_at <= ?4`

// takeLease is TakeLease: acquireLeaseSQL changes the row only when holder takes it.
func (s *Store) takeLease(ctx context.Context, name, holder string, ttl time.Duration) (got bool, err error) {
	err = s.inTx(ctx, func(tx sqlstore.DB) error {
		now := s.now()
		n, err := tx.Exec(ctx, acquireLeaseSQL, name, holder, toDB(now.Add(ttl)), toDB(now))
		got = n == 1
		return err
	})
	return got, err
}

// ReleaseLease gives the lease up if holder holds it. It replaces the engine's, which
// runs in autocommit, to take its turn on the writer as every write transaction does
// (writeTurns).
func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	return s.inTx(ctx, func(tx sqlstore.DB) error {
		_, err := tx.Exec(ctx, engineSQL.ReleaseLease, name, holder)
		return mapError(err)
	})
}
