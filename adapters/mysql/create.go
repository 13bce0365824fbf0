package mysql

import "github.com/chronoshq/chronos/adapters/internal/sqlrow"

// insertAlarmSQL inserts one alarm (sqlstore.Statements.InsertAlarm).
var insertAlarmSQL = `INSERT INTO alarms (` + alarmColumns + `) VALUES (` + placeholders(sqlrow.AlarmParams) + `)`

// payloadArg is the payload column: bytes exactly as given, never NULL.
func payloadArg(p []byte) []byte {
	if p == nil {
		return []byte{}
	}
	return p
}
