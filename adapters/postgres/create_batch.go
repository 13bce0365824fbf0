package postgres

import (
	"context"
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
	RETURNING ` + alarmColumns + `
)
SELECT ` + alarmColumns + ` FROM inserted`

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
	err := withRetry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, createBatchSQL, args...)
			if err != nil {
				return err
			}
			inserted, err := collectAlarms(rows, len(as))
			if err != nil {
				return err
			}
			byID := make(map[string]int, len(inserted)) // index into inserted
			for i, a := range inserted {
				byID[a.ID] = i
			}
			type ownerKey struct{ owner, key string }
			var owners, keys []string
			for _, a := range as {
				if _, ok := byID[a.ID]; !ok && a.IdempotencyKey != "" {
					owners, keys = append(owners, a.Owner), append(keys, a.IdempotencyKey)
				}
			}
			existing := map[ownerKey]domain.Alarm{}
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
					existing[ownerKey{a.Owner, a.IdempotencyKey}] = a
				}
			}
			// The first item with an id is the one inserted (a later one with the same id
			// conflicts), and the first with an owner's key is the one a later item with
			// that key is deduped to: both found through maps, never by walking the batch
			// again for each item.
			firstWithKey := make(map[ownerKey]string)
			for _, a := range as {
				if k := (ownerKey{a.Owner, a.IdempotencyKey}); a.IdempotencyKey != "" && firstWithKey[k] == "" {
					firstWithKey[k] = a.ID
				}
			}
			given := make(map[string]bool, len(inserted)) // ids already given to an item
			for i, a := range as {
				j, ok := byID[a.ID]
				switch {
				case ok && !given[a.ID]:
					given[a.ID] = true // a later item with the same id is not this one
					out[i] = ports.CreateResult{Alarm: inserted[j]}
				case a.IdempotencyKey != "" && existing[ownerKey{a.Owner, a.IdempotencyKey}].ID != "":
					out[i] = ports.CreateResult{Alarm: existing[ownerKey{a.Owner, a.IdempotencyKey}], Deduped: true}
				case a.IdempotencyKey != "":
					if j, ok := byID[firstWithKey[ownerKey{a.Owner, a.IdempotencyKey}]]; ok {
						out[i] = ports.CreateResult{Alarm: inserted[j], Deduped: true}
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
