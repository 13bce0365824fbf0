package sqlite

import (
	"context"
	"database/sql"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqltext"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var (
	_ ports.Exporter = (*Store)(nil)
	_ ports.Importer = (*Store)(nil)
)

// The export's reads walk the primary key (alarms) and alarm_events_alarm (alarm_id,
// id); its writes are the hot path's inserts, in one write transaction each.
const (
	exportAlarmsSQL = `SELECT ` + alarmColumns + ` FROM alarms WHERE id > ? ORDER BY id LIMIT ? + 0`
	exportEventsSQL = `SELECT id, ` + eventColumns + ` FROM alarm_events
		WHERE alarm_id >= ?1 AND alarm_id <= ?2 AND (alarm_id > ?1 OR id > ?3)
		ORDER BY alarm_id, id LIMIT ?4 + 0`
)

var importEndpointSQL = `INSERT INTO endpoints (` + endpointColumns + `) VALUES (` + sqltext.Placeholders(sqlrow.EndpointParams) + `)`

// ExportAlarms returns the next page of every owner's alarms in id order.
func (s *Store) ExportAlarms(ctx context.Context, after string, limit int) ([]domain.Alarm, error) {
	rows, err := s.reader.QueryContext(ctx, exportAlarmsSQL, after, limit)
	if err != nil {
		return nil, mapError(err)
	}
	as, err := scanAlarms(rows)
	return as, mapError(err)
}

// ExportEvents returns the next page of stored events by (alarm id, event id).
func (s *Store) ExportEvents(ctx context.Context, after ports.EventCursor, through string, limit int) ([]domain.Event, error) {
	rows, err := s.reader.QueryContext(ctx, exportEventsSQL, after.AlarmID, through, after.ID, limit)
	if err != nil {
		return nil, mapError(err)
	}
	evs, err := scanEvents(rows)
	return evs, mapError(err)
}

// ImportAlarms is CreateMany, which writes every column of each alarm as given.
func (s *Store) ImportAlarms(ctx context.Context, as []domain.Alarm) error {
	return s.CreateMany(ctx, as)
}

// ImportEvents appends es in one write transaction; the foreign key refuses an event of
// an unknown alarm.
func (s *Store) ImportEvents(ctx context.Context, es []domain.Event) error {
	if len(es) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error { return s.insertEvents(ctx, tx, es) })
}

// ImportEndpoints inserts es with their own stamps in one write transaction: a handful
// of rows, one statement each.
func (s *Store) ImportEndpoints(ctx context.Context, es []domain.Endpoint) error {
	if len(es) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, e := range es {
			args := append(sqlrow.EndpointValues(e), toDB(trunc(e.CreatedAt)), toDB(trunc(e.UpdatedAt)))
			if _, err := tx.ExecContext(ctx, importEndpointSQL, args...); err != nil {
				return mapError(err)
			}
		}
		return nil
	})
}
