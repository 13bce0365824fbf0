package mysql

import (
	"context"
	"slices"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqltext"
	"github.com/chronoshq/chronos/domain"
)

// eventsPerInsert bounds one multi-row INSERT: 12 placeholders a row stays far below
// the 65,535 a statement may carry, and the statement below max_allowed_packet.
const eventsPerInsert = 1024

// An event row: sqlrow's, the same in every store.
const (
	eventColumns = sqlrow.EventRowColumns
	eventParams  = sqlrow.EventRowParams
)

// insertEvents appends evs, in order, with multi-row INSERTs cut into insertPieces, so
// that each is a prepared statement of a few sizes (buckets.go).
func insertEvents(ctx context.Context, tx batchTx, evs []domain.Event) error {
	for chunk := range slices.Chunk(evs, eventsPerInsert) {
		if err := eachPiece(chunk, func(piece []domain.Event) error {
			args := make([]any, 0, eventParams*len(piece))
			for _, ev := range piece {
				args = sqlrow.AppendEventRow(args, ev, timeArg)
			}
			q := `INSERT INTO alarm_events (` + eventColumns + `) VALUES ` + sqltext.ValuesRows(len(piece), eventParams)
			_, err := tx.exec(ctx, q, args...)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}
