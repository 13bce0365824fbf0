package mysql

import (
	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
)

var insertAlarmSQL = `INSERT INTO alarms (` + alarmColumns + `) VALUES (` + placeholders(sqlrow.AlarmParams) + `)`

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
