package mysql

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
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

// deleteWithEvents is DeleteChosen: it deletes the alarms ids, which tx holds locked
// (expiredAlarmsSQL, chooseByIDs), and then, in a later statement, their events (no
// foreign key; migration 00001 explains the order).
func deleteWithEvents(ctx context.Context, tx sqlstore.DB, ids []string) (ports.Deleted, error) {
	in, args := `(`+placeholders(len(ids))+`)`, idArgs(ids)
	if _, err := tx.Exec(ctx, `DELETE FROM alarms WHERE id IN `+in, args...); err != nil {
		return ports.Deleted{}, err
	}
	n, err := tx.Exec(ctx, `DELETE FROM alarm_events WHERE alarm_id IN `+in, args...)
	return ports.Deleted{Alarms: len(ids), Events: int(n)}, err
}

// trimBoundsSQL reads, for the $2 alarms after the cursor, the id of each one's
// ($1+1)-th newest event (alarm_events_alarm backwards, at most $1+1 entries); NULL
// when it has no more than $1.
const trimBoundsSQL = `SELECT a.id,
	(SELECT x.id FROM alarm_events x WHERE x.alarm_id = a.id ORDER BY x.id DESC LIMIT 1 OFFSET ?)
	FROM (SELECT id FROM alarms WHERE id > ? ORDER BY id LIMIT ?) a
	ORDER BY a.id`

// trimStep is TrimStep, in two statements: the bounds, then one DELETE joining the
// events to them (a derived table of literals: MySQL refuses a DELETE whose subquery
// reads the table it deletes from).
func (s *Store) trimStep(ctx context.Context, p ports.TrimEvents) (events int, last string, covered int, err error) {
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		events, last, covered = 0, "", 0
		rows, err := tx.QueryContext(ctx, trimBoundsSQL, p.Keep, []byte(p.After), p.Alarms)
		if err != nil {
			return err
		}
		var args []any
		var parts []string
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
		if err := rows.Err(); err != nil || covered == 0 {
			return err
		}
		args = append(args, micro(p.Before))
		n, err := sqlrow.Affected(tx.ExecContext(ctx, `DELETE e FROM alarm_events e JOIN (`+strings.Join(parts, ` UNION ALL `)+`) c
			ON e.alarm_id = c.alarm_id WHERE e.at < ? OR e.id <= c.below`, args...))
		events = int(n)
		return err
	})
	return events, last, covered, err
}

// takeLease is TakeLease: the row is read under a lock, the decision made here, and
// the row written in the same transaction. Two callers inserting a missing row at once:
// the second gets a duplicate key and does not hold the lease.
func (s *Store) takeLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
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
	return got, err
}
