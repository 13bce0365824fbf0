package sqlite

import (
	"context"
	"database/sql"
	"slices"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
)

// An event row: sqlrow's, the same in every store.
const (
	eventColumns = sqlrow.EventRowColumns
	eventParams  = sqlrow.EventRowParams
)

// insertEventsSQL appends up to rows events in one statement; padding rows (a NULL
// alarm id) are left out.
func insertEventsSQL(rows int) string {
	return `INSERT INTO alarm_events (` + eventColumns + `)
		SELECT column1, column2, column3, column4, column5, column6, column7, column8, column9, column10, column11, column12
		FROM (VALUES ` + valuesRows(rows, eventParams) + `) WHERE column1 IS NOT NULL`
}

// insertEvents appends events with as few statements as the variable limit allows, each
// prepared once (see statements).
func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, events []domain.Event) error {
	for chunk := range slices.Chunk(events, maxBatchRows) {
		b := bucketIndex(len(chunk))
		args := make([]any, 0, eventParams<<b)
		for _, e := range chunk {
			args = sqlrow.AppendEventRow(args, e, toDB)
		}
		args = args[:cap(args)] // the padding stays nil: NULL
		if _, err := tx.StmtContext(ctx, s.stmts.insertEvents[b]).ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}
