package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/domain"
)

// alarmColumns is the column list every alarm read selects, in scanAlarm's order.
const alarmColumns = sqlrow.AlarmColumns

// scanAlarm reads one row of alarmColumns and checks it with domain.Rehydrate.
func scanAlarm(row sqlrow.Scanner) (domain.Alarm, error) {
	return newAlarmScanner().Scan(row)
}

// collectAlarms reads every row of alarmColumns.
func collectAlarms(rows pgx.Rows, sizeHint int) ([]domain.Alarm, error) {
	defer rows.Close()
	return newAlarmScanner().All(rows, sizeHint)
}

// newAlarmScanner reads times into pgtype.Timestamptz and nullable text into
// pgtype.Text, which pgx fills without boxing a value per column.
func newAlarmScanner() *sqlrow.Alarms[pgtype.Timestamptz, pgtype.Text] {
	return sqlrow.NewAlarms(tsTime, func(t pgtype.Text) string { return t.String })
}

// tsTime is a nullable timestamptz as the domain keeps it: zero when NULL, else UTC.
func tsTime(t pgtype.Timestamptz) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}

// timeArg is a time as a parameter: NULL when zero, else UTC at the store's precision.
// Truncating here, not in PostgreSQL, makes what a caller reads back equal what it
// computed from the same truncated inputs.
func timeArg(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// storedAlarm is a as a read of its row returns it: its times at the store's precision,
// and an empty payload as the JSON null the column keeps.
func storedAlarm(a domain.Alarm) domain.Alarm {
	a = sqlstore.StoredTimes(a, func(t time.Time) time.Time { return deref(timeArg(t)) })
	a.Payload = payloadArg(a.Payload)
	return a
}
