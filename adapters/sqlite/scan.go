package sqlite

import (
	"database/sql"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
)

// alarmColumns lists every column of alarms in the order scanAlarm reads them.
const alarmColumns = sqlrow.AlarmColumns

// scanAlarm reads one alarms row (alarmColumns) and checks it with domain.Rehydrate;
// callers map its error with the driver's.
func scanAlarm(row sqlrow.Scanner) (domain.Alarm, error) {
	return newAlarmScanner().Scan(row)
}

// scanAlarms reads every row and closes rows.
func scanAlarms(rows *sql.Rows) ([]domain.Alarm, error) {
	defer rows.Close()
	return newAlarmScanner().All(rows, 0)
}

// newAlarmScanner reads times as unix milliseconds (see timestamps.go) and claimed_by as
// sql.NullString.
func newAlarmScanner() *sqlrow.Alarms[sql.NullInt64, sql.NullString] {
	return sqlrow.NewAlarms(fromDB, sqlrow.NullString)
}
