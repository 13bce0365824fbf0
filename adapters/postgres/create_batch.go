package postgres

import (
	"context"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
)

// createBatchSQL inserts a batch of alarms in one statement (their created events are
// not stored: domain.CreatedEvent). The alarms arrive as parallel arrays, one element per
// alarm (the elems encoding of apply.go). ON CONFLICT DO NOTHING without a target skips
// a row that hits any unique index: an owner's idempotency key already stored (or taken
// by an earlier row of the same batch) or an id that exists; the engine's CreateBatch
// then tells the two apart. A conflicting row of a concurrent transaction is waited for, so what is
// skipped is committed and the next statement sees it.
const createBatchSQL = `
WITH t AS (
	SELECT * FROM unnest(
		$1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[],
		$8::timestamptz[], $9::timestamptz[], $10::text[], $11::text[], $12::text[], $13::text[],
		$14::text[], $15::text[], $16::int[], $17::int[], $18::text[], $19::timestamptz[],
		$20::timestamptz[], $21::timestamptz[], $22::text[], $23::int[], $24::int[],
		$25::text[], $26::timestamptz[], $27::text[], $28::text[], $29::text[]
	) WITH ORDINALITY AS t(id, owner, label, kind, fire_at, cron_expr, timezone,
		next_fire_at, scheduled_for, conversation_id, wake_message, payload, status,
		delivery, idempotency_key, max_failures, failure_count, last_error, created_at,
		updated_at, last_fired_at, series, fire_count, skip_streak, paused_reason,
		paused_until, endpoint, trace_parent, trace_state, ord)
), inserted AS (
	INSERT INTO alarms (` + alarmColumns + `)
	SELECT id, owner, label, kind, fire_at, cron_expr, timezone, next_fire_at, scheduled_for,
	       conversation_id, wake_message, payload::json, status, delivery, idempotency_key,
	       max_failures, failure_count, last_error, NULL, NULL, created_at, updated_at, last_fired_at,
	       series, fire_count, skip_streak, paused_reason, paused_until, endpoint,
	       trace_parent, trace_state
	FROM t ORDER BY ord
	ON CONFLICT DO NOTHING
	RETURNING id, owner, idempotency_key
)
SELECT id, owner, idempotency_key FROM inserted`

// byIdempotencyKeysSQL reads the alarms of (owner, key) pairs; like byIdempotencyKeySQL
// it repeats the partial index's predicate so the generic plan can use the index.
const byIdempotencyKeysSQL = `SELECT ` + alarmColumns + ` FROM alarms
	WHERE (owner, idempotency_key) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND idempotency_key <> ''`

// insertBatch is the engine's InsertBatch: createBatchSQL, one statement. It returns
// what identifies each row it inserted, not every column: an inserted row is its item
// as given, at the store's precision, so reading the row back would only return what is
// already here, for the server's time to send 31 columns an alarm and the node's to
// decode them.
func (s *Store) insertBatch(ctx context.Context, db sqlstore.DB, as []domain.Alarm) (map[string]bool, []domain.Alarm, error) {
	rows, err := db.Query(ctx, createBatchSQL, createBatchArgs(as)...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	inserted := make(map[string]bool, len(as))
	for rows.Next() {
		var id, owner, key string
		if err := rows.Scan(&id, &owner, &key); err != nil {
			return nil, nil, err
		}
		inserted[id] = true
	}
	return inserted, nil, rows.Err()
}

// alarmsByKey is the engine's AlarmsByKey: byIdempotencyKeysSQL, one statement.
func (s *Store) alarmsByKey(ctx context.Context, db sqlstore.DB, keys []sqlstore.OwnerKey) ([]domain.Alarm, error) {
	owners, ks := make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		owners[i], ks[i] = k.Owner, k.Key
	}
	rows, err := db.Query(ctx, byIdempotencyKeysSQL, owners, ks)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return newAlarmScanner().All(rows, len(keys))
}

// createBatchArgs are createBatchSQL's parameters: one array per column.
func createBatchArgs(as []domain.Alarm) []any {
	type a = domain.Alarm
	return []any{
		column(as, func(a a) pgtype.Text { return text(a.ID) }),
		column(as, func(a a) pgtype.Text { return text(a.Owner) }),
		column(as, func(a a) pgtype.Text { return text(a.Label) }),
		column(as, func(a a) pgtype.Text { return text(string(a.Kind)) }),
		column(as, func(a a) pgtype.Timestamptz { return timestamptz(a.FireAt) }),
		column(as, func(a a) pgtype.Text { return text(a.CronExpr) }),
		column(as, func(a a) pgtype.Text { return text(a.Timezone) }),
		column(as, func(a a) pgtype.Timestamptz { return timestamptz(a.NextFireAt) }),
		column(as, func(a a) pgtype.Timestamptz { return timestamptz(a.ScheduledFor) }),
		column(as, func(a a) pgtype.Text { return text(a.ConversationID) }),
		column(as, func(a a) pgtype.Text { return text(a.WakeMessage) }),
		column(as, func(a a) pgtype.Text { return text(string(payloadArg(a.Payload))) }),
		column(as, func(a a) pgtype.Text { return text(string(a.Status)) }),
		column(as, func(a a) pgtype.Text { return text(string(a.Delivery)) }),
		column(as, func(a a) pgtype.Text { return text(a.IdempotencyKey) }),
		column(as, func(a a) pgtype.Int4 { return int4(a.MaxFailures) }),
		column(as, func(a a) pgtype.Int4 { return int4(a.FailureCount) }),
		column(as, func(a a) pgtype.Text { return text(a.LastError) }),
		column(as, func(a a) pgtype.Timestamptz { return timestamptz(a.CreatedAt) }),
		column(as, func(a a) pgtype.Timestamptz { return timestamptz(a.UpdatedAt) }),
		column(as, func(a a) pgtype.Timestamptz { return timestamptz(a.LastFiredAt) }),
		column(as, func(a a) pgtype.Text { return nullText(sqlrow.EncodeSeries(a.Series)) }),
		column(as, func(a a) pgtype.Int4 { return int4(a.FireCount) }),
		column(as, func(a a) pgtype.Int4 { return int4(a.SkipStreak) }),
		column(as, func(a a) pgtype.Text { return text(a.PausedReason) }),
		column(as, func(a a) pgtype.Timestamptz { return timestamptz(a.PausedUntil) }),
		column(as, func(a a) pgtype.Text { return text(a.Endpoint) }),
		column(as, func(a a) pgtype.Text { return nullText(a.TraceParent) }),
		column(as, func(a a) pgtype.Text { return nullText(a.TraceState) }),
	}
}

// column is one array parameter: f of every alarm.
func column[T any](as []domain.Alarm, f func(domain.Alarm) T) elems[T] {
	out := make(elems[T], len(as))
	for i, a := range as {
		out[i] = f(a)
	}
	return out
}
