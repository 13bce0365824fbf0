package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

const (
	eventColumns = `alarm_id, type, at, attempt, scheduled_for, worker, message`
	eventParams  = 7
	// eventsPerInsert keeps one INSERT far below SQLite's limit of 32766 bound
	// variables while still writing a whole typical batch in one statement.
	eventsPerInsert = 500
)

// insertEvents appends events with as few multi-row INSERTs as the variable limit allows.
func insertEvents(ctx context.Context, tx *sql.Tx, events []domain.Event) error {
	for len(events) > 0 {
		n := min(len(events), eventsPerInsert)
		chunk := events[:n]
		events = events[n:]

		var q strings.Builder
		q.WriteString(`INSERT INTO alarm_events (` + eventColumns + `) VALUES `)
		args := make([]any, 0, n*eventParams)
		for i, e := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?, ?, ?, ?)")
			args = append(args, e.AlarmID, string(e.Type), toDB(e.At), e.Attempt, toDB(e.ScheduledFor), e.Worker, e.Message)
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return mapError(err)
		}
	}
	return nil
}

// Events returns the owner's alarm's history, oldest first.
func (s *Store) Events(ctx context.Context, owner, id string, limit int) ([]domain.Event, error) {
	if limit <= 0 || limit > ports.MaxEventsLimit {
		limit = ports.MaxEventsLimit
	}
	// One read transaction, so the ownership check and the history see one snapshot.
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, mapError(err)
	}
	defer tx.Rollback()
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM alarms WHERE id = ? AND owner = ?`, id, owner).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("alarm", id)
	}
	if err != nil {
		return nil, mapError(err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, `+eventColumns+` FROM alarm_events
		WHERE alarm_id = ? ORDER BY id LIMIT ?`, id, limit)
	if err != nil {
		return nil, mapError(err)
	}
	events, err := scanEvents(rows)
	return events, mapError(err)
}
