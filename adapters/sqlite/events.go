package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/chronoshq/chronos/adapters/internal/page"
	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
)

const (
	eventColumns = sqlrow.EventColumns
	eventParams  = sqlrow.EventParams
)

// insertEventsSQL appends up to rows events in one statement; padding rows (a NULL
// alarm id) are left out.
func insertEventsSQL(rows int) string {
	return `INSERT INTO alarm_events (` + eventColumns + `)
		SELECT column1, column2, column3, column4, column5, column6, column7
		FROM (VALUES ` + valuesRows(rows, eventParams) + `) WHERE column1 IS NOT NULL`
}

// insertEvents appends events with as few statements as the variable limit allows, each
// prepared once (see statements).
func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, events []domain.Event) error {
	for chunk := range slices.Chunk(events, maxBatchRows) {
		b := bucket(len(chunk))
		args := make([]any, 0, eventParams<<b)
		for _, e := range chunk {
			args = sqlrow.AppendEvent(args, e, toDB)
		}
		args = args[:cap(args)] // the padding stays nil: NULL
		if _, err := tx.StmtContext(ctx, s.stmts.insertEvents[b]).ExecContext(ctx, args...); err != nil {
			return mapError(err)
		}
	}
	return nil
}

// Events returns the owner's alarm's history, oldest first.
func (s *Store) Events(ctx context.Context, owner, id string, limit int) ([]domain.Event, error) {
	return s.events(ctx, id, ofOwner(owner), limit)
}

// events is the history of the alarm with id, if owner (NULL: any) owns it.
func (s *Store) events(ctx context.Context, id string, owner sql.NullString, limit int) ([]domain.Event, error) {
	limit = page.Events(limit)
	// One read transaction, so the ownership check and the history see one snapshot.
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, mapError(err)
	}
	defer tx.Rollback()
	var createdAt, fireAt sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT created_at, fire_at FROM alarms WHERE id = ?1 AND (?2 IS NULL OR owner = ?2)`, id, owner).Scan(&createdAt, &fireAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("alarm", id)
	}
	if err != nil {
		return nil, mapError(err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, `+eventColumns+` FROM alarm_events
		WHERE alarm_id = ? ORDER BY id LIMIT ? + 0`, id, limit)
	if err != nil {
		return nil, mapError(err)
	}
	events, err := scanEvents(rows)
	if err != nil {
		return nil, mapError(err)
	}
	// The created event is not stored (domain.CreatedEvent).
	return domain.WithCreated(events, domain.CreatedEvent(id, fromDB(createdAt), fromDB(fireAt)), limit), nil
}
