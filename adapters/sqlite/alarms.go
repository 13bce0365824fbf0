package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// createBatchSQL inserts up to rows alarms in one statement (padding rows, all NULL,
// are left out) and returns the ids it inserted. ON CONFLICT DO NOTHING without a target
// skips a row that hits any unique index: an owner's idempotency key already stored or
// taken by an earlier row, or an id that exists. (The WHERE also tells SQLite's parser
// that ON CONFLICT belongs to the INSERT, not to the SELECT.)
func createBatchSQL(rows int) string {
	cols := make([]string, sqlrow.AlarmParams)
	for i := range cols {
		cols[i] = fmt.Sprintf("column%d", i+1)
	}
	return `INSERT INTO alarms (` + alarmColumns + `)
		SELECT ` + strings.Join(cols, ", ") + ` FROM (VALUES ` + valuesRows(rows, sqlrow.AlarmParams) + `) WHERE column1 IS NOT NULL
		ON CONFLICT DO NOTHING
		RETURNING id`
}

// byKeySQL reads the owner's alarm with an idempotency key.
const byKeySQL = `SELECT ` + alarmColumns + ` FROM alarms WHERE owner = ? AND idempotency_key = ?`

// CreateBatch creates many alarms in one write transaction, each as the port says: one
// prepared multi-row INSERT per chunk of the batch (createBatchSQL), then, for the items
// it skipped, their owner's alarm with the same key (deduped) or ErrConflict (the id
// exists).
func (s *Store) CreateBatch(ctx context.Context, as []domain.Alarm) ([]ports.CreateResult, error) {
	out := make([]ports.CreateResult, len(as))
	if len(as) == 0 {
		return out, nil
	}
	stored := make([]domain.Alarm, len(as))
	for i, a := range as {
		stored[i] = storedAlarm(a)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		inserted := make(map[string]bool, len(stored))
		for chunk := range slices.Chunk(stored, maxBatchRows) {
			b := bucketIndex(len(chunk))
			args := make([]any, sqlrow.AlarmParams<<b) // the padding stays nil: NULL
			for i, a := range chunk {
				copy(args[sqlrow.AlarmParams*i:], alarmArgs(a))
			}
			rows, err := tx.StmtContext(ctx, s.stmts.createBatch[b]).QueryContext(ctx, args...)
			if err != nil {
				return mapError(err)
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return mapError(err)
				}
				inserted[id] = true
			}
			if err := rows.Err(); err != nil {
				return mapError(err)
			}
		}
		byKey := tx.StmtContext(ctx, s.stmts.byKey)
		for i, a := range stored {
			if inserted[a.ID] {
				inserted[a.ID] = false // a later item with the same id is not this one
				out[i] = ports.CreateResult{Alarm: a}
				continue
			}
			if a.IdempotencyKey != "" {
				twin, err := scanAlarm(byKey.QueryRowContext(ctx, a.Owner, a.IdempotencyKey))
				if err == nil {
					out[i] = ports.CreateResult{Alarm: twin, Deduped: true}
					continue
				}
				if !errors.Is(err, sql.ErrNoRows) {
					return mapError(err)
				}
			}
			out[i] = ports.CreateResult{Err: fmt.Errorf("sqlite: alarm id %q exists: %w", a.ID, ports.ErrConflict)}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// alarmArgs are a's values in alarmColumns order (a already as stored).
func alarmArgs(a domain.Alarm) []any {
	return []any{a.ID, a.Owner, a.Label, string(a.Kind), toDB(a.FireAt), a.CronExpr, a.Timezone, toDB(a.NextFireAt),
		toDB(a.ScheduledFor), a.ConversationID, a.WakeMessage, payloadBytes(a.Payload), string(a.Status),
		string(a.Delivery), a.IdempotencyKey, a.MaxFailures, a.FailureCount, a.LastError,
		sqlstore.NullText(a.ClaimedBy), toDB(a.ClaimedAt), toDB(a.CreatedAt), toDB(a.UpdatedAt), toDB(a.LastFiredAt),
		sqlstore.NullText(sqlrow.EncodeSeries(a.Series)), a.FireCount, a.SkipStreak, a.PausedReason, toDB(a.PausedUntil),
		a.Endpoint}
}

// insertAlarmSQL inserts one alarm; a clash on the owner's idempotency key inserts
// nothing (see createIn).
var insertAlarmSQL = `INSERT INTO alarms (` + alarmColumns + `)
	VALUES (` + placeholders(sqlrow.AlarmParams) + `)
	ON CONFLICT (owner, idempotency_key) WHERE idempotency_key <> '' DO NOTHING`

// createIn inserts a (already as stored) inside the write transaction tx, or finds the
// owner's alarm with its idempotency key. The conflict target is the partial unique
// index of idempotency keys: a clash there is a dedupe, while a clash on the primary
// key is ErrConflict. It writes no event.
func (s *Store) createIn(ctx context.Context, tx *sql.Tx, a domain.Alarm) ports.CreateResult {
	n, err := sqlrow.Affected(tx.StmtContext(ctx, s.stmts.insertAlarm).ExecContext(ctx, alarmArgs(a)...))
	if err != nil {
		return ports.CreateResult{Err: mapError(err)}
	}
	if n == 1 {
		return ports.CreateResult{Alarm: a}
	}
	stored, err := scanAlarm(tx.StmtContext(ctx, s.stmts.byKey).QueryRowContext(ctx, a.Owner, a.IdempotencyKey))
	if err != nil {
		return ports.CreateResult{Err: mapError(err)}
	}
	return ports.CreateResult{Alarm: stored, Deduped: true}
}

// storedAlarm is a as the store keeps it: every time column truncated to the millisecond.
func storedAlarm(a domain.Alarm) domain.Alarm { return sqlstore.StoredTimes(a, trunc) }

// payloadBytes is the payload column: never NULL, an empty payload is zero bytes.
func payloadBytes(p []byte) []byte {
	if p == nil {
		return []byte{}
	}
	return p
}
