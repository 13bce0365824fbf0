package mysql

import (
	"context"
	"database/sql"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var (
	_ ports.Exporter = (*Store)(nil)
	_ ports.Importer = (*Store)(nil)
)

// The export's reads walk the primary key (alarms) and alarm_events_alarm (alarm_id,
// id); its writes are CreateMany's and Apply's multi-row INSERTs, one transaction each.
const (
	exportAlarmsSQL = `SELECT ` + alarmColumns + ` FROM alarms WHERE id > ? ORDER BY id LIMIT ?`
	exportEventsSQL = `SELECT id, ` + sqlrow.EventColumns + ` FROM alarm_events
		WHERE alarm_id >= ? AND alarm_id <= ? AND (alarm_id > ? OR id > ?)
		ORDER BY alarm_id, id LIMIT ?`
)

// ExportAlarms returns the next page of every owner's alarms in id order.
func (s *Store) ExportAlarms(ctx context.Context, after string, limit int) ([]domain.Alarm, error) {
	rows, err := s.db.QueryContext(ctx, exportAlarmsSQL, after, limit)
	if err != nil {
		return nil, mapError(err)
	}
	as, err := scanAlarms(rows)
	return as, mapError(err)
}

// ExportEvents returns the next page of stored events by (alarm id, event id).
func (s *Store) ExportEvents(ctx context.Context, after ports.EventCursor, through string, limit int) ([]domain.Event, error) {
	rows, err := s.db.QueryContext(ctx, exportEventsSQL, after.AlarmID, through, after.AlarmID, after.ID, limit)
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	evs := []domain.Event{}
	for rows.Next() {
		var (
			e                domain.Event
			typ              string
			at, scheduledFor sql.NullTime
		)
		if err := rows.Scan(&e.ID, &e.AlarmID, &typ, &at, &e.Attempt, &scheduledFor, &e.Worker, &e.Message); err != nil {
			return nil, mapError(err)
		}
		e.Type, e.At, e.ScheduledFor = domain.EventType(typ), sqlrow.NullTime(at), sqlrow.NullTime(scheduledFor)
		evs = append(evs, e)
	}
	return evs, mapError(rows.Err())
}

// ImportAlarms is CreateMany, whose INSERTs write every column of each alarm as given.
func (s *Store) ImportAlarms(ctx context.Context, as []domain.Alarm) error {
	return s.CreateMany(ctx, as)
}

// ImportEvents appends es, in order, in one transaction (AUTO_INCREMENT numbers a
// multi-row INSERT's rows in the order they are listed).
func (s *Store) ImportEvents(ctx context.Context, es []domain.Event) error {
	if len(es) == 0 {
		return nil
	}
	defer s.stmts.prepareQueued(ctx) // once no transaction is open
	return mapError(s.inTx(ctx, func(tx *sql.Tx) error {
		return insertEvents(ctx, s.batch(tx), es)
	}))
}

// ImportEndpoints inserts es with their own stamps in one transaction: a handful of
// rows, one statement each.
func (s *Store) ImportEndpoints(ctx context.Context, es []domain.Endpoint) error {
	if len(es) == 0 {
		return nil
	}
	return mapError(s.inTx(ctx, func(tx *sql.Tx) error {
		for _, e := range es {
			e = storedEndpoint(e)
			args := append(sqlrow.EndpointValues(e), timeArg(e.CreatedAt), timeArg(e.UpdatedAt))
			if _, err := tx.ExecContext(ctx, createEndpointSQL, args...); err != nil {
				return err
			}
		}
		return nil
	}))
}
