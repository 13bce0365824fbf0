package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var insertAlarmSQL = `INSERT INTO alarms (` + alarmColumns + `) VALUES (` + placeholders(sqlrow.AlarmParams) + `)`

// createAttempts bounds Create's loop in the one case that loops: a duplicate key whose
// owner vanished (retention deleted it) before it could be read.
const createAttempts = 3

// Create inserts a (its created event is not stored: domain.CreatedEvent), or returns
// the owner's existing alarm with the same idempotency key (deduped).
//
// The insert is one statement in autocommit, no transaction of its own, run again after
// a deadlock or a lock wait timeout (retry), as it was when it shared inTx's transaction
// with the created event.
//
// MySQL has no INSERT ... ON CONFLICT DO NOTHING RETURNING, so the insert is simply
// tried; a duplicate-key error then says a unique key is taken, and reads decide which:
// the owner's idempotency key first (dedupe wins, whatever else a says), then the id.
// The duplicate-key check waits for any transaction still inserting the twin, so when
// the error arrives the twin is committed and a new statement (READ COMMITTED) sees it.
func (s *Store) Create(ctx context.Context, a domain.Alarm) (domain.Alarm, bool, error) {
	a = storedAlarm(a)
	for attempt := 1; ; attempt++ {
		err := s.retry(ctx, func() error {
			_, err := s.db.ExecContext(ctx, insertAlarmSQL, alarmArgs(a)...)
			return err
		})
		if err == nil {
			return a, false, nil
		}
		if !serverErrorIs(err, erDupEntry) {
			return domain.Alarm{}, false, mapError(err)
		}
		if a.IdempotencyKey != "" {
			twin, err := scanAlarm(s.db.QueryRowContext(ctx,
				`SELECT `+alarmColumns+` FROM alarms WHERE owner = ? AND idempotency_key = ?`, a.Owner, a.IdempotencyKey))
			if err == nil {
				return twin, true, nil
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return domain.Alarm{}, false, mapError(fmt.Errorf("read the alarm with idempotency key %q: %w", a.IdempotencyKey, err))
			}
		}
		var one int
		err = s.db.QueryRowContext(ctx, `SELECT 1 FROM alarms WHERE id = ?`, a.ID).Scan(&one)
		if err == nil {
			return domain.Alarm{}, false, fmt.Errorf("mysql: alarm id %q exists: %w", a.ID, ports.ErrConflict)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return domain.Alarm{}, false, mapError(err)
		}
		if attempt == createAttempts {
			return domain.Alarm{}, false, fmt.Errorf("mysql: alarm %q: a unique key kept colliding with rows deleted before they could be read: %w",
				a.ID, ports.ErrConflict)
		}
	}
}

// alarmArgs are a's values in alarmColumns order.
func alarmArgs(a domain.Alarm) []any {
	return []any{
		a.ID, a.Owner, a.Label, string(a.Kind), timeArg(a.FireAt), a.CronExpr, a.Timezone,
		timeArg(a.NextFireAt), timeArg(a.ScheduledFor), a.ConversationID, a.WakeMessage,
		payloadArg(a.Payload), string(a.Status), string(a.Delivery), sqlstore.NullText(a.IdempotencyKey),
		a.MaxFailures, a.FailureCount, a.LastError, sqlstore.NullText(a.ClaimedBy), timeArg(a.ClaimedAt),
		timeArg(a.CreatedAt), timeArg(a.UpdatedAt), timeArg(a.LastFiredAt),
		sqlstore.NullText(sqlrow.EncodeSeries(a.Series)), a.FireCount, a.SkipStreak, a.PausedReason, timeArg(a.PausedUntil),
		a.Endpoint,
	}
}

// payloadArg is the payload column: bytes exactly as given, never NULL.
func payloadArg(p []byte) []byte {
	if p == nil {
		return []byte{}
	}
	return p
}
