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
)

// insertAlarmsSQL inserts rows alarms from rows of bound values (alarmParams each, all
// NULL for a padding row, which is left out), followed by tail (an ON CONFLICT clause,
// RETURNING). The WHERE also tells SQLite's parser that an ON CONFLICT belongs to the
// INSERT, not to the SELECT.
func insertAlarmsSQL(rows int, tail string) string {
	cols := make([]string, alarmParams)
	for i := range cols {
		cols[i] = fmt.Sprintf("column%d", i+1)
	}
	return `INSERT INTO alarms (` + alarmColumns + `, lane)
		SELECT ` + strings.Join(cols, ", ") + ` FROM (VALUES ` + valuesRows(rows, alarmParams) +
		`) WHERE column1 IS NOT NULL ` + tail
}

// alarmParams is how many values an insert binds per alarm (Engine.AlarmArgs): its
// columns, then its lane.
const alarmParams = sqlrow.AlarmParams + 1

// createBatchSQL inserts up to rows alarms in one statement and returns the ids it
// inserted. ON CONFLICT DO NOTHING without a target skips a row that hits any unique
// index: an owner's idempotency key already stored or taken by an earlier row, or an id
// that exists.
func createBatchSQL(rows int) string {
	return insertAlarmsSQL(rows, `ON CONFLICT DO NOTHING RETURNING id`)
}

// byKeySQL reads the owner's alarm with an idempotency key.
const byKeySQL = `SELECT ` + alarmColumns + ` FROM alarms WHERE owner = ? AND idempotency_key = ?`

// insertBatch is the engine's InsertBatch: one prepared multi-row INSERT per chunk of
// the batch (createBatchSQL).
func (s *Store) insertBatch(ctx context.Context, db sqlstore.DB, as []domain.Alarm) (map[string]bool, []domain.Alarm, error) {
	tx := db.(sqlstore.SQLTx).Tx
	inserted := make(map[string]bool, len(as))
	for chunk := range slices.Chunk(as, maxBatchRows) {
		b := bucketIndex(len(chunk))
		args := make([]any, alarmParams<<b) // the padding stays nil: NULL
		for i, a := range chunk {
			copy(args[alarmParams*i:], s.AlarmArgs(a))
		}
		rows, err := tx.StmtContext(ctx, s.stmts.createBatch[b]).QueryContext(ctx, args...)
		if err != nil {
			return nil, nil, err
		}
		err = sqlstore.MarkIDs(rows, inserted)
		rows.Close()
		if err != nil {
			return nil, nil, err
		}
	}
	return inserted, nil, nil
}

// alarmsByKey is the engine's AlarmsByKey: one prepared read by key each.
func (s *Store) alarmsByKey(ctx context.Context, db sqlstore.DB, keys []sqlstore.OwnerKey) ([]domain.Alarm, error) {
	byKey := db.(sqlstore.SQLTx).Tx.StmtContext(ctx, s.stmts.byKey)
	var out []domain.Alarm
	for _, k := range keys {
		a, err := scanAlarm(byKey.QueryRowContext(ctx, k.Owner, k.Key))
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// insertAlarmSQL inserts one alarm (Apply's notices); a clash on the owner's
// idempotency key would insert nothing, one on the id fails.
var insertAlarmSQL = insertAlarmsSQL(1, `ON CONFLICT (owner, idempotency_key) WHERE idempotency_key <> '' DO NOTHING`)

// storedAlarm is a as the store keeps it: every time column truncated to the millisecond.
func storedAlarm(a domain.Alarm) domain.Alarm { return sqlstore.StoredTimes(a, trunc) }
