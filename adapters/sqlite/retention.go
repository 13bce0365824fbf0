package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/ports"
)

// expiredAlarmsSQL chooses a batch of expired terminal alarms, walking the partial index
// alarms_terminal from the oldest change. The write lock is held for the whole
// transaction, so nothing changes between the choice and the deletes; a leased row is
// never taken.
const expiredAlarmsSQL = `SELECT id FROM alarms
	WHERE status IN ('fired', 'cancelled', 'failed') AND updated_at < ?1 AND claimed_by IS NULL
	ORDER BY updated_at LIMIT ?2 + 0`

// DeleteExpiredAlarms deletes a batch of expired terminal alarms and their events
// (deleteWithEvents).
func (s *Store) DeleteExpiredAlarms(ctx context.Context, p ports.ExpiredAlarms) (ports.Deleted, error) {
	if p.Limit < 1 {
		return ports.Deleted{}, errors.New("sqlite: delete expired alarms: limit must be at least 1")
	}
	var d ports.Deleted
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, expiredAlarmsSQL, toDB(trunc(p.Before)), p.Limit)
		if err != nil {
			return mapError(err)
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return mapError(err)
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			return mapError(err)
		}
		d, err = s.deleteWithEvents(ctx, tx, ids)
		return err
	})
	return d, err
}

// deleteEventsOfSQL and deleteAlarmsSQL take the ids as one JSON array (?1), so each is
// one statement prepared once, whatever the number of ids, far from the variable limit.
// Each probes its index (alarm_events_alarm, the primary key) once per id
// (TestAdminPlans).
const (
	deleteEventsOfSQL = `DELETE FROM alarm_events WHERE alarm_id IN (SELECT value FROM json_each(?1))`
	deleteAlarmsSQL   = `DELETE FROM alarms WHERE id IN (SELECT value FROM json_each(?1))`
)

// deleteWithEvents deletes the alarms with these ids (unknown ones are skipped) and all
// their events inside the write transaction tx, and counts both.
//
// The events go first, explicitly, though this schema's foreign key would cascade them:
// so they are counted, and so the store does what the others do whether or not
// foreign_keys is on. The other stores, which have no such key, delete the alarm rows
// first and then the events of exactly the ids deleted, so that no concurrent writer
// adds an event in between (ports.RetentionStore). Here tx holds the write lock from its
// first statement to its commit: no writer, in any process, runs in between, and the
// events deleted are exactly those of the alarms deleted (the key admits no event
// without its alarm), in either order.
func (s *Store) deleteWithEvents(ctx context.Context, tx *sql.Tx, ids []string) (ports.Deleted, error) {
	if len(ids) == 0 {
		return ports.Deleted{}, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return ports.Deleted{}, fmt.Errorf("sqlite: delete alarms: %w", err)
	}
	var d ports.Deleted
	if d.Events, err = execCount(ctx, tx.StmtContext(ctx, s.stmts.deleteEventsOf), string(list)); err != nil {
		return ports.Deleted{}, err
	}
	if d.Alarms, err = execCount(ctx, tx.StmtContext(ctx, s.stmts.deleteAlarms), string(list)); err != nil {
		return ports.Deleted{}, err
	}
	return d, nil
}

// execCount runs st and returns how many rows it changed.
func execCount(ctx context.Context, st *sql.Stmt, args ...any) (int, error) {
	n, err := sqlrow.Affected(st.ExecContext(ctx, args...))
	return int(n), mapError(err)
}

// trimEventsSQL deletes, for the alarms after the cursor ($1, $2 of them), their events
// older than $3 or beyond the $4 newest ($4 > 0). Each alarm's bound is found through
// alarm_events_alarm backwards, reading at most $4+1 entries.
const trimEventsSQL = `DELETE FROM alarm_events WHERE id IN (
	SELECT e.id FROM (SELECT id FROM alarms WHERE id > ?1 ORDER BY id LIMIT ?2 + 0) a
	JOIN alarm_events e ON e.alarm_id = a.id
	WHERE e.at < ?3 OR (?4 > 0 AND e.id <= (
		SELECT x.id FROM alarm_events x WHERE x.alarm_id = a.id ORDER BY x.id DESC LIMIT 1 OFFSET ?4)))`

// TrimEvents is one step of the sweep that deletes old events and caps each alarm's.
func (s *Store) TrimEvents(ctx context.Context, p ports.TrimEvents) (ports.Trimmed, error) {
	if p.Alarms < 1 || p.Keep < 0 {
		return ports.Trimmed{}, errors.New("sqlite: trim events: alarms must be at least 1 and keep not negative")
	}
	var t ports.Trimmed
	err := s.write(ctx, func(tx *sql.Tx) error {
		t = ports.Trimmed{}
		var last sql.NullString
		var covered int
		if err := tx.QueryRowContext(ctx, `SELECT max(id), count(*) FROM (SELECT id FROM alarms WHERE id > ?1 ORDER BY id LIMIT ?2 + 0)`,
			p.After, p.Alarms).Scan(&last, &covered); err != nil {
			return mapError(err)
		}
		res, err := tx.ExecContext(ctx, trimEventsSQL, p.After, p.Alarms, toDB(trunc(p.Before)), p.Keep)
		if err != nil {
			return mapError(err)
		}
		n, _ := res.RowsAffected()
		t.Events = int(n)
		if covered == p.Alarms {
			t.Next = last.String
		}
		return nil
	})
	return t, err
}

// AcquireLease takes or renews the named lease for holder. The write lock serialises
// callers, across processes too.
func (s *Store) AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	if name == "" || holder == "" || ttl <= 0 {
		return false, errors.New("sqlite: acquire lease: name, holder and a positive ttl are required")
	}
	var got bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := s.now()
		res, err := tx.ExecContext(ctx, `INSERT INTO chronos_leases (name, holder, expires_at) VALUES (?1, ?2, ?3)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE chronos_leases.holder = excluded.holder OR chronos_leases.expires_at <= ?4`,
			name, holder, toDB(now.Add(ttl)), toDB(now))
		if err != nil {
			return mapError(err)
		}
		n, err := res.RowsAffected()
		got = n == 1
		return mapError(err)
	})
	return got, err
}

// ReleaseLease gives the lease up if holder holds it.
func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM chronos_leases WHERE name = ? AND holder = ?`, name, holder)
		return mapError(err)
	})
}
