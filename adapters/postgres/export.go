package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var (
	_ ports.Exporter = (*Store)(nil)
	_ ports.Importer = (*Store)(nil)
)

// The export's reads walk alarms_pkey and alarm_events_pkey (alarm_id, id); its writes
// are COPYs and plain INSERTs, one transaction each.
const (
	exportAlarmsSQL = `SELECT ` + alarmColumns + ` FROM alarms WHERE id > $1 ORDER BY id LIMIT $2`
	exportEventsSQL = `SELECT id, alarm_id, type, at, attempt, scheduled_for, worker, message FROM alarm_events
		WHERE alarm_id >= $1 AND alarm_id <= $2 AND (alarm_id > $1 OR id > $3)
		ORDER BY alarm_id, id LIMIT $4`
	importEndpointSQL = `INSERT INTO endpoints (` + endpointColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`
)

// eventColumnNames are the columns ImportEvents copies; the id is the identity column's.
var eventColumnNames = []string{"alarm_id", "type", "at", "attempt", "scheduled_for", "worker", "message"}

// ExportAlarms returns the next page of every owner's alarms in id order.
func (s *Store) ExportAlarms(ctx context.Context, after string, limit int) ([]domain.Alarm, error) {
	rows, err := s.pool.Query(ctx, exportAlarmsSQL, after, limit)
	if err != nil {
		return nil, mapError(err)
	}
	as, err := collectAlarms(rows, limit)
	return as, mapError(err)
}

// ExportEvents returns the next page of stored events by (alarm id, event id).
func (s *Store) ExportEvents(ctx context.Context, after ports.EventCursor, through string, limit int) ([]domain.Event, error) {
	rows, err := s.pool.Query(ctx, exportEventsSQL, after.AlarmID, through, after.ID, limit)
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	evs := []domain.Event{}
	for rows.Next() {
		var (
			e                domain.Event
			typ              string
			at, scheduledFor *time.Time
		)
		if err := rows.Scan(&e.ID, &e.AlarmID, &typ, &at, &e.Attempt, &scheduledFor, &e.Worker, &e.Message); err != nil {
			return nil, mapError(err)
		}
		e.Type, e.At, e.ScheduledFor = domain.EventType(typ), deref(at), deref(scheduledFor)
		evs = append(evs, e)
	}
	return evs, mapError(rows.Err())
}

// ImportAlarms is CreateMany, whose COPY writes every column of each alarm as given.
func (s *Store) ImportAlarms(ctx context.Context, as []domain.Alarm) error {
	return s.CreateMany(ctx, as)
}

// ImportEvents copies es in one transaction; COPY takes the rows in order, so the
// identity column numbers them in that order.
func (s *Store) ImportEvents(ctx context.Context, es []domain.Event) error {
	if len(es) == 0 {
		return nil
	}
	return mapError(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"alarm_events"}, eventColumnNames, pgx.CopyFromSlice(len(es), func(i int) ([]any, error) {
			e := es[i]
			return []any{e.AlarmID, string(e.Type), timeArg(e.At), int32(e.Attempt), timeArg(e.ScheduledFor), e.Worker, e.Message}, nil
		}))
		return err
	}))
}

// ImportEndpoints inserts es with their own stamps in one transaction: a handful of
// rows, one statement each.
func (s *Store) ImportEndpoints(ctx context.Context, es []domain.Endpoint) error {
	if len(es) == 0 {
		return nil
	}
	return mapError(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, e := range es {
			args := append(sqlrow.EndpointValues(e), timeArg(e.CreatedAt), timeArg(e.UpdatedAt))
			if _, err := tx.Exec(ctx, importEndpointSQL, args...); err != nil {
				return err
			}
		}
		return nil
	}))
}
