package mysql

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/ports"
)

// expiredAlarmsSQL chooses and locks a batch of expired terminal alarms: one range of
// alarms_terminal (terminal_at, a generated column set only on terminal rows; see
// migration 00002), oldest first, so it steps only on expired entries. A leased row is
// never taken; a row another transaction holds is skipped.
const expiredAlarmsSQL = `SELECT id FROM alarms FORCE INDEX (alarms_terminal)
	WHERE terminal_at < ? AND claimed_by IS NULL
	ORDER BY terminal_at
	LIMIT ?
	FOR UPDATE SKIP LOCKED`

// DeleteExpiredAlarms deletes a batch of expired terminal alarms and their events.
func (s *Store) DeleteExpiredAlarms(ctx context.Context, p ports.ExpiredAlarms) (ports.Deleted, error) {
	if p.Limit < 1 {
		return ports.Deleted{}, errors.New("mysql: delete expired alarms: limit must be at least 1")
	}
	var d ports.Deleted
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		d = ports.Deleted{}
		rows, err := tx.QueryContext(ctx, expiredAlarmsSQL, micro(p.Before), p.Limit)
		if err != nil {
			return err
		}
		ids, err := scanIDs(rows)
		if err != nil || len(ids) == 0 {
			return err
		}
		d, err = deleteWithEvents(ctx, tx, ids)
		return err
	})
	if err != nil {
		return ports.Deleted{}, mapError(err)
	}
	return d, nil
}

// scanIDs reads a result of alarm ids, as arguments for the statements that follow.
func scanIDs(rows *sql.Rows) ([]any, error) {
	defer rows.Close()
	var ids []any
	for rows.Next() {
		var id []byte
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// deleteWithEvents deletes the alarms ids, which tx holds locked, and then, in a later
// statement, their events (no foreign key; migration 00001 explains the order). Retention
// and the admin delete share it.
func deleteWithEvents(ctx context.Context, tx *sql.Tx, ids []any) (ports.Deleted, error) {
	in := `(` + placeholders(len(ids)) + `)`
	if _, err := tx.ExecContext(ctx, `DELETE FROM alarms WHERE id IN `+in, ids...); err != nil {
		return ports.Deleted{}, err
	}
	n, err := sqlrow.Affected(tx.ExecContext(ctx, `DELETE FROM alarm_events WHERE alarm_id IN `+in, ids...))
	if err != nil {
		return ports.Deleted{}, err
	}
	return ports.Deleted{Alarms: len(ids), Events: int(n)}, nil
}

// trimBoundsSQL reads, for the $2 alarms after the cursor, the id of each one's
// ($1+1)-th newest event (alarm_events_alarm backwards, at most $1+1 entries); NULL
// when it has no more than $1.
const trimBoundsSQL = `SELECT a.id,
	(SELECT x.id FROM alarm_events x WHERE x.alarm_id = a.id ORDER BY x.id DESC LIMIT 1 OFFSET ?)
	FROM (SELECT id FROM alarms WHERE id > ? ORDER BY id LIMIT ?) a
	ORDER BY a.id`

// TrimEvents is one step of the sweep that deletes old events and caps each alarm's.
// Two statements: the bounds, then one DELETE joining the events to them (a derived
// table of literals: MySQL refuses a DELETE whose subquery reads the table it deletes
// from).
func (s *Store) TrimEvents(ctx context.Context, p ports.TrimEvents) (ports.Trimmed, error) {
	if p.Alarms < 1 || p.Keep < 0 {
		return ports.Trimmed{}, errors.New("mysql: trim events: alarms must be at least 1 and keep not negative")
	}
	var t ports.Trimmed
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		t = ports.Trimmed{}
		rows, err := tx.QueryContext(ctx, trimBoundsSQL, p.Keep, []byte(p.After), p.Alarms)
		if err != nil {
			return err
		}
		var args []any
		var parts []string
		var last string
		covered := 0
		for rows.Next() {
			var id []byte
			var below sql.NullInt64
			if err := rows.Scan(&id, &below); err != nil {
				rows.Close()
				return err
			}
			covered++
			last = string(id)
			if p.Keep == 0 {
				below = sql.NullInt64{} // no cap: only age deletes
			}
			parts = append(parts, `SELECT ? AS alarm_id, ? AS below`)
			args = append(args, id, below)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if covered == p.Alarms {
			t.Next = last
		}
		if covered == 0 {
			return nil
		}
		args = append(args, micro(p.Before))
		n, err := sqlrow.Affected(tx.ExecContext(ctx, `DELETE e FROM alarm_events e JOIN (`+strings.Join(parts, ` UNION ALL `)+`) c
			ON e.alarm_id = c.alarm_id WHERE e.at < ? OR e.id <= c.below`, args...))
		t.Events = int(n)
		return err
	})
	if err != nil {
		return ports.Trimmed{}, mapError(err)
	}
	return t, nil
}

// AcquireLease takes or renews the named lease for holder: the row is read under a
// lock, the decision made here, and the row written in the same transaction. Two
// callers inserting a missing row at once: the second gets a duplicate key and does
// not hold the lease.
func (s *Store) AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	if name == "" || holder == "" || ttl <= 0 {
		return false, errors.New("mysql: acquire lease: name, holder and a positive ttl are required")
	}
	var got bool
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		got = false
		now, err := s.now(ctx, tx)
		if err != nil {
			return err
		}
		until := micro(now.Add(ttl))
		var cur []byte
		var expires time.Time
		err = tx.QueryRowContext(ctx, `SELECT holder, expires_at FROM chronos_leases WHERE name = ? FOR UPDATE`,
			[]byte(name)).Scan(&cur, &expires)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.ExecContext(ctx, `INSERT INTO chronos_leases (name, holder, expires_at) VALUES (?, ?, ?)`,
				[]byte(name), []byte(holder), until)
			if serverErrorIs(err, erDupEntry) {
				return nil // another caller took it first
			}
		case err != nil:
			return err
		case string(cur) == holder || !expires.After(now):
			_, err = tx.ExecContext(ctx, `UPDATE chronos_leases SET holder = ?, expires_at = ? WHERE name = ?`,
				[]byte(holder), until, []byte(name))
		default:
			return nil // held by someone else, not expired
		}
		got = err == nil
		return err
	})
	if err != nil {
		return false, mapError(err)
	}
	return got, nil
}

// ReleaseLease gives the lease up if holder holds it.
func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM chronos_leases WHERE name = ? AND holder = ?`, []byte(name), []byte(holder))
	return mapError(err)
}
