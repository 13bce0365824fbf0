package mysql

import (
	"database/sql"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
	"github.com/chronoshq/chronos/adapters/internal/sqltext"
	"github.com/chronoshq/chronos/domain"
)

// precision is what a DATETIME(6) column keeps.
const precision = time.Microsecond

// alarmColumns is the column list every alarm read selects, in scanAlarm's order.
const alarmColumns = sqlrow.AlarmColumns

// qualified is a column list with each column prefixed by table.
var qualified = sqlrow.Qualified

// scanAlarm reads one row of alarmColumns and checks it with domain.Rehydrate.
func scanAlarm(r sqlrow.Scanner) (domain.Alarm, error) {
	return newAlarmScanner().Scan(r)
}

// scanAlarms reads every row of alarmColumns.
func scanAlarms(rows *sql.Rows) ([]domain.Alarm, error) {
	defer rows.Close()
	return newAlarmScanner().All(rows, 0)
}

// newAlarmScanner reads DATETIME(6) columns as sql.NullTime (in UTC: see connector.go)
// and nullable text (claimed_by, idempotency_key) as sql.NullString.
func newAlarmScanner() *sqlrow.Alarms[sql.NullTime, sql.NullString] {
	return sqlrow.NewAlarms(sqlrow.NullTime, sqlrow.NullString)
}

// micro is t as a DATETIME(6) column keeps it: UTC, cut to the microsecond. Every time
// the store writes goes through it, so what it returns is exactly what it stored.
func micro(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(precision)
}

// timeArg is t as a query argument: NULL when zero ("unset"), else micro(t).
func timeArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return micro(t)
}

// storedAlarm is a with every time column as the store keeps it.
func storedAlarm(a domain.Alarm) domain.Alarm { return sqlstore.StoredTimes(a, micro) }

// placeholders is "?, ?, ?" with n marks.
func placeholders(n int) string { return sqltext.Placeholders(n) }
