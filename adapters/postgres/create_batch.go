package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// createBatchSQL inserts a batch of alarms in one statement (their created events are
// not stored: domain.CreatedEvent). The alarms arrive as parallel arrays, one element per
// alarm (the elems encoding of apply.go). ON CONFLICT DO NOTHING without a target skips
// a row that hits any unique index: an owner's idempotency key already stored (or taken
// by an earlier row of the same batch) or an id that exists; CreateBatch then tells the
// two apart. A conflicting row of a concurrent transaction is waited for, so what is
// skipped is committed and the next statement sees it.
const createBatchSQL = `
WITH t AS (
	SELECT * FROM unnest(
		$1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[],
		$8::timestamptz[], $9::timestamptz[], $10::text[], $11::text[], $12::text[], $13::text[],
		$14::text[], $15::text[], $16::int[], $17::int[], $18::text[], $19::timestamptz[],
		$20::timestamptz[], $21::timestamptz[], $22::text[], $23::int[], $24::int[],
		$25::text[], $26::timestamptz[], $27::text[]
	) WITH ORDINALITY AS t(id, owner, label, kind, fire_at, cron_expr, timezone,
		next_fire_at, scheduled_for, conversation_id, wake_message, payload, status,
		delivery, idempotency_key, max_failures, failure_count, last_error, created_at,
		updated_at, last_fired_at, series, fire_count, skip_streak, paused_reason,
		paused_until, endpoint, ord)
), inserted AS (
	INSERT INTO alarms (` + alarmColumns + `)
	SELECT id, owner, label, kind, fire_at, cron_expr, timezone, next_fire_at, scheduled_for,
	       conversation_id, wake_message, payload::json, status, delivery, idempotency_key,
	       max_failures, failure_count, last_error, NULL, NULL, created_at, updated_at, last_fired_at,
	       series, fire_count, skip_streak, paused_reason, paused_until, endpoint
	FROM t ORDER BY ord
	ON CONFLICT DO NOTHING
	RETURNING id, owner, idempotency_key
)
SELECT id, owner, idempotency_key FROM inserted`

// byIdempotencyKeysSQL reads the alarms of (owner, key) pairs; like byIdempotencyKeySQL
// it repeats the partial index's predicate so the generic plan can use the index.
const byIdempotencyKeysSQL = `SELECT ` + alarmColumns + ` FROM alarms
	WHERE (owner, idempotency_key) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND idempotency_key <> ''`

// CreateBatch creates many alarms in one transaction, each idempotent on its own key.
func (s *Store) CreateBatch(ctx context.Context, as []domain.Alarm) ([]ports.CreateResult, error) {
	out := make([]ports.CreateResult, len(as))
	if len(as) == 0 {
		return out, nil
	}
	args := createBatchArgs(as)
	err := retry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, createBatchSQL, args...)
			if err != nil {
				return err
			}
			// The statement returns what identifies each row it inserted, not every
			// column: an inserted row is its item as given, at the store's precision
			// (storedAlarm), so reading the row back would only return what is already
			// here, for the server's time to send 29 columns an alarm and the node's to
			// decode them.
			ins, err := pgx.CollectRows(rows, pgx.RowToStructByPos[insertedRow])
			if err != nil {
				return err
			}
			inserted := make(map[insertedRow]bool, len(ins))
			for _, r := range ins {
				inserted[r] = true
			}
			// The item a row was inserted from is the first with its id, owner and key
			// (a later twin conflicts); the item a key's later twins dedupe to is the
			// one inserted with it. Both through maps, never by walking the batch again
			// for each item.
			created := make(map[string]bool, len(ins))     // ids given to an item
			withKey := make(map[insertedRow]int, len(ins)) // (owner, key) → item inserted with it
			var owners, keys []string
			for i, a := range as {
				r := insertedRow{a.ID, a.Owner, a.IdempotencyKey}
				if inserted[r] && !created[a.ID] {
					created[a.ID] = true
					out[i] = ports.CreateResult{Alarm: storedAlarm(a)}
					if a.IdempotencyKey != "" {
						withKey[insertedRow{Owner: a.Owner, Key: a.IdempotencyKey}] = i
					}
					continue
				}
				out[i].Err = errNotCreated
				if a.IdempotencyKey != "" {
					owners, keys = append(owners, a.Owner), append(keys, a.IdempotencyKey)
				}
			}
			existing := map[insertedRow]domain.Alarm{}
			if len(keys) > 0 {
				rows, err := tx.Query(ctx, byIdempotencyKeysSQL, owners, keys)
				if err != nil {
					return err
				}
				found, err := collectAlarms(rows, len(keys))
				if err != nil {
					return err
				}
				for _, a := range found {
					existing[insertedRow{Owner: a.Owner, Key: a.IdempotencyKey}] = a
				}
			}
			for i, a := range as {
				if out[i].Err != errNotCreated {
					continue
				}
				k := insertedRow{Owner: a.Owner, Key: a.IdempotencyKey}
				switch twin, ok := existing[k]; {
				case a.IdempotencyKey != "" && ok:
					out[i] = ports.CreateResult{Alarm: twin, Deduped: true}
				case a.IdempotencyKey != "":
					if j, ok := withKey[k]; ok {
						out[i] = ports.CreateResult{Alarm: out[j].Alarm, Deduped: true}
						continue
					}
					// The key's alarm was deleted between the conflict and the read
					// (retention): this item is not created; the client may retry.
					out[i] = ports.CreateResult{Err: fmt.Errorf("postgres: idempotency key %q is taken, but its alarm vanished: %w", a.IdempotencyKey, ports.ErrConflict)}
				default:
					out[i] = ports.CreateResult{Err: fmt.Errorf("postgres: alarm id %s exists: %w", a.ID, ports.ErrConflict)}
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, mapError(err)
	}
	return out, nil
}

// insertedRow identifies a row createBatchSQL inserted (and, without ID, an owner's key).
type insertedRow struct{ ID, Owner, Key string }

// errNotCreated marks, while CreateBatch works out its results, an item whose row was
// not inserted; every such item ends deduped or with an error of its own.
var errNotCreated = errors.New("postgres: not created")

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
