package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var _ ports.BulkCreator = (*Store)(nil)

// alarmColumnNames is alarmColumns as the list CopyFrom takes.
var alarmColumnNames = func() []string {
	names := strings.Split(alarmColumns, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}()

// CreateMany inserts as with a COPY in one transaction (their created events are not
// stored: domain.CreatedEvent):
// the binary COPY protocol streams rows without a statement per row, so a load costs
// what the server needs to write it. A taken id or idempotency key is a unique
// violation that aborts the COPY, and with it the whole transaction.
func (s *Store) CreateMany(ctx context.Context, as []domain.Alarm) error {
	if len(as) == 0 {
		return nil
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return mapError(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit

	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"alarms"}, alarmColumnNames, pgx.CopyFromSlice(len(as), func(i int) ([]any, error) {
		a := as[i]
		return []any{
			a.ID, a.Owner, a.Label, string(a.Kind), timeArg(a.FireAt), a.CronExpr, a.Timezone, timeArg(a.NextFireAt),
			timeArg(a.ScheduledFor), a.ConversationID, a.WakeMessage, payloadArg(a.Payload), string(a.Status), string(a.Delivery),
			a.IdempotencyKey, int32(a.MaxFailures), int32(a.FailureCount), a.LastError, sqlstore.NullText(a.ClaimedBy), timeArg(a.ClaimedAt),
			timeArg(a.CreatedAt), timeArg(a.UpdatedAt), timeArg(a.LastFiredAt),
			sqlstore.NullText(sqlrow.EncodeSeries(a.Series)), int32(a.FireCount), int32(a.SkipStreak), a.PausedReason, timeArg(a.PausedUntil),
			a.Endpoint,
		}, nil
	})); err != nil {
		return mapError(err)
	}
	return mapError(tx.Commit(ctx))
}
