package mysql

import (
	"context"
	"database/sql"
	"slices"

	"github.com/chronoshq/chronos/adapters/internal/page"
	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqltext"
	"github.com/chronoshq/chronos/domain"
)

// eventsPerInsert bounds one multi-row INSERT: 7 placeholders a row stays far below
// the 65,535 a statement may carry, and the statement below max_allowed_packet.
const eventsPerInsert = 1024

// insertEvents appends evs, in order, with multi-row INSERTs cut into insertPieces, so
// that each is a prepared statement of a few sizes (buckets.go).
func insertEvents(ctx context.Context, tx batchTx, evs []domain.Event) error {
	for chunk := range slices.Chunk(evs, eventsPerInsert) {
		if err := eachPiece(chunk, func(piece []domain.Event) error {
			args := make([]any, 0, sqlrow.EventParams*len(piece))
			for _, ev := range piece {
				args = sqlrow.AppendEvent(args, ev, timeArg)
			}
			q := `INSERT INTO alarm_events (` + sqlrow.EventColumns + `) VALUES ` + sqltext.ValuesRows(len(piece), sqlrow.EventParams)
			_, err := tx.exec(ctx, q, args...)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// eventsSQL reads the alarm and its stored events in one statement: no row means the
// alarm is unknown (or not the owner's); one row with a NULL event id means it has no
// stored events. Its creation comes with every row: the created event is not stored
// (domain.CreatedEvent).
func eventsSQL(where string) string {
	return `SELECT a.created_at, a.fire_at, e.id, e.type, e.at, e.attempt, e.scheduled_for, e.worker, e.message
	FROM alarms a LEFT JOIN alarm_events e ON e.alarm_id = a.id
	WHERE ` + where + `
	ORDER BY e.id
	LIMIT ?`
}

// Events returns the owner's alarm's history, oldest first.
func (s *Store) Events(ctx context.Context, owner, id string, limit int) ([]domain.Event, error) {
	return s.events(ctx, ownedBy(owner, id), limit)
}

// events is Events of the alarm r names.
func (s *Store) events(ctx context.Context, r alarmRef, limit int) ([]domain.Event, error) {
	limit = page.Events(limit)
	where, args := r.where("a.")
	rows, err := s.db.QueryContext(ctx, eventsSQL(where), append(args, limit)...)
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	found := false
	out := []domain.Event{}
	var createdAt, fireAt sql.NullTime
	for rows.Next() {
		found = true
		var (
			evID             sql.NullInt64
			typ, worker, msg sql.NullString
			at, scheduledFor sql.NullTime
			attempt          sql.NullInt64
		)
		if err := rows.Scan(&createdAt, &fireAt, &evID, &typ, &at, &attempt, &scheduledFor, &worker, &msg); err != nil {
			return nil, mapError(err)
		}
		if !evID.Valid {
			continue
		}
		out = append(out, domain.Event{
			ID:           evID.Int64,
			AlarmID:      r.id,
			Type:         domain.EventType(typ.String),
			At:           at.Time,
			Attempt:      int(attempt.Int64),
			ScheduledFor: scheduledFor.Time,
			Worker:       worker.String,
			Message:      msg.String,
		})
	}
	if err := rows.Err(); err != nil {
		return nil, mapError(err)
	}
	if !found {
		return nil, notFound("alarm", r.id)
	}
	return domain.WithCreated(out, domain.CreatedEvent(r.id, createdAt.Time, fireAt.Time), limit), nil
}
