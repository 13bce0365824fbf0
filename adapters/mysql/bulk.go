package mysql

import (
	"context"
	"strings"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// The engine's bulk writes and export over this store's statements.
var _ interface {
	ports.BulkCreator
	ports.Exporter
	ports.Importer
} = (*Store)(nil)

// Bounds of one multi-row INSERT in CreateMany: 31 placeholders a row keeps 512 rows
// far below the 65,535 a statement may carry, and the byte budget keeps a statement of
// large payloads well below the server's max_allowed_packet (16 MiB by default).
const (
	alarmsPerInsert     = 512
	alarmBytesPerInsert = 4 << 20
)

// insertAll inserts as with multi-row INSERTs (the engine's InsertMany, without
// skipDuplicates): chunks within insertChunk's bounds, each
// cut into insertPieces so that every statement is one of a few prepared sizes.
func (s *Store) insertAll(ctx context.Context, tx batchTx, as []domain.Alarm, skipDuplicates bool) error {
	for rest := as; len(rest) > 0; {
		chunk := rest[:insertChunk(rest)]
		rest = rest[len(chunk):]
		if err := eachPiece(chunk, func(piece []domain.Alarm) error {
			return s.insertAlarms(ctx, tx, piece, skipDuplicates)
		}); err != nil {
			return err
		}
	}
	return nil
}

// insertChunk is how many alarms from the front of as go into one INSERT: at least one,
// at most alarmsPerInsert, and no more than the byte budget once the first is in.
func insertChunk(as []domain.Alarm) int {
	size := 0
	for i, a := range as {
		size += len(a.Payload) + len(a.WakeMessage) + len(a.Label) + len(a.ConversationID) + 256
		if i == alarmsPerInsert || (i > 0 && size > alarmBytesPerInsert) {
			return i
		}
	}
	return len(as)
}

// insertAlarms writes as in one multi-row INSERT. With skipDuplicates a row that hits a
// unique key is left out (ON DUPLICATE KEY UPDATE that changes nothing) instead of
// failing the statement.
func (s *Store) insertAlarms(ctx context.Context, tx batchTx, as []domain.Alarm, skipDuplicates bool) error {
	var q strings.Builder
	q.WriteString(`INSERT INTO alarms (` + alarmColumns + `) VALUES `)
	row := "(" + placeholders(sqlrow.AlarmParams) + ")"
	args := make([]any, 0, sqlrow.AlarmParams*len(as))
	for i, a := range as {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(row)
		args = append(args, s.AlarmArgs(a)...)
	}
	if skipDuplicates {
		q.WriteString(` ON DUPLICATE KEY UPDATE id = id`)
	}
	_, err := tx.exec(ctx, q.String(), args...)
	return err
}
