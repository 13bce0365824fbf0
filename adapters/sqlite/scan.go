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

// scanEvents reads alarm_events rows (id, alarm_id, type, at, attempt, scheduled_for,
// worker, message) and closes rows.
func scanEvents(rows *sql.Rows) ([]domain.Event, error) {
	defer rows.Close()
	events := []domain.Event{}
	for rows.Next() {
		var (
			e            domain.Event
			typ          string
			at, schedFor sql.NullInt64
		)
		if err := rows.Scan(&e.ID, &e.AlarmID, &typ, &at, &e.Attempt, &schedFor, &e.Worker, &e.Message); err != nil {
			return nil, err
		}
		e.Type, e.At, e.ScheduledFor = domain.EventType(typ), fromDB(at), fromDB(schedFor)
		events = append(events, e)
	}
	return events, rows.Err()
}
