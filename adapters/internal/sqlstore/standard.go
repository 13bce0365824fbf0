package sqlstore

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqltext"
)

// Standard is the text of the statements that read the same in every dialect, with "?"
// placeholders: a dialect starts from it (Numbered where it numbers its placeholders)
// and sets the rest, those with its clock, its locking or a tuned walk.
var Standard = Statements{
	GetAlarm: `SELECT ` + sqlrow.AlarmColumns + ` FROM alarms WHERE id = ?`,
	Define:   `UPDATE alarms SET ` + sqlrow.DefineSet + ` WHERE id = ?`,

	AlarmOwner: `SELECT owner FROM alarms WHERE id = ?`,
	// Ordered by the whole key, so that every planner walks (alarm_id, id) backwards
	// from the cursor rather than the table's id order.
	Attempts: `SELECT id, ` + sqlrow.EventColumns + `, ` + sqlrow.ReceiptColumns + ` FROM alarm_events
		WHERE alarm_id = ? AND id < ? AND duration_us IS NOT NULL
		ORDER BY alarm_id DESC, id DESC LIMIT ?`,

	// The old admin column is still written, for binaries that predate scopes.
	CreateToken:     `INSERT INTO api_tokens (` + sqlrow.TokenColumns + `, admin) VALUES (` + sqltext.Placeholders(9) + `)`,
	TokenByHash:     `SELECT ` + sqlrow.TokenColumns + ` FROM api_tokens WHERE hash = ?`,
	ListOwnerTokens: `SELECT ` + sqlrow.TokenColumns + ` FROM api_tokens WHERE owner = ? ORDER BY created_at, id`, // api_tokens_owner
	ListTokens:      sqlrow.ListTokensSQL,
	TouchToken: `UPDATE api_tokens SET last_used_at = ?
		WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,

	CreateSession: `INSERT INTO ui_sessions (hash, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?)`,
	SessionByHash: `SELECT token_hash, created_at, expires_at FROM ui_sessions WHERE hash = ?`,
	DeleteSession: `DELETE FROM ui_sessions WHERE hash = ?`,

	CreateEndpoint:     `INSERT INTO endpoints (` + sqlrow.EndpointColumns + `) VALUES (` + sqltext.Placeholders(sqlrow.EndpointParams) + `)`,
	GetEndpoint:        `SELECT ` + sqlrow.EndpointColumns + ` FROM endpoints WHERE owner = ? AND name = ?`,
	LockEndpoint:       `SELECT ` + sqlrow.EndpointColumns + ` FROM endpoints WHERE owner = ? AND name = ? FOR UPDATE`,
	ListOwnerEndpoints: `SELECT ` + sqlrow.EndpointColumns + ` FROM endpoints WHERE owner = ? ORDER BY name`,
	UpdateEndpoint: `UPDATE endpoints SET url = ?, secrets = ?, timeout_ms = ?, max_in_flight = ?,
		rate_per_second = ?, failure_url = ?, updated_at = ? WHERE owner = ? AND name = ?`,
	DeleteEndpoint: `DELETE FROM endpoints WHERE owner = ? AND name = ?`,

	InsertCalendar: `INSERT INTO calendars (` + sqlrow.CalendarColumns + `) VALUES (?, ?, ?, ?, ?, ?)`,
	UpdateCalendar: `UPDATE calendars SET timezone = ?, exclusions = ?, updated_at = ? WHERE owner = ? AND name = ?`,
	UnlinkCalendar: `DELETE FROM series_calendars WHERE owner = ? AND calendar = ? AND series_id = ?`,
	GetCalendar:    `SELECT ` + sqlrow.CalendarColumns + ` FROM calendars WHERE owner = ? AND name = ?`,
	LockCalendar:   `SELECT ` + sqlrow.CalendarColumns + ` FROM calendars WHERE owner = ? AND name = ? FOR UPDATE`,
	ListCalendars:  `SELECT ` + sqlrow.CalendarColumns + ` FROM calendars WHERE owner = ? ORDER BY name`,
	CalendarsNamed: `SELECT ` + sqlrow.CalendarColumns + ` FROM calendars
		WHERE owner = ? AND name IN (` + sqltext.Placeholders(CalendarsPerRead) + `) ORDER BY name`,
	CountCalendars:      `SELECT COUNT(*) FROM (SELECT 1 FROM calendars WHERE owner = ? LIMIT ?) AS mine`,
	DeleteCalendar:      `DELETE FROM calendars WHERE owner = ? AND name = ?`,
	DeleteCalendarLinks: `DELETE FROM series_calendars WHERE owner = ? AND calendar = ?`,
	CalendarUser: `SELECT sc.series_id FROM series_calendars sc JOIN alarms a ON a.id = sc.series_id
		WHERE sc.owner = ? AND sc.calendar = ? AND a.status IN ('active', 'paused')
		ORDER BY sc.series_id LIMIT 1`,

	// The export walks the primary key (alarms) and (alarm_id, id) of alarm_events.
	ExportAlarms: `SELECT ` + sqlrow.AlarmColumns + ` FROM alarms WHERE id > ? ORDER BY id LIMIT ?`,
	ExportEvents: `SELECT id, ` + sqlrow.EventRowColumns + ` FROM alarm_events
		WHERE alarm_id >= ? AND alarm_id <= ? AND (alarm_id > ? OR id > ?)
		ORDER BY alarm_id, id LIMIT ?`,
	// and the primary key (owner, name) of calendars.
	ExportCalendars: `SELECT ` + sqlrow.CalendarColumns + ` FROM calendars
		WHERE owner >= ? AND (owner > ? OR name > ?) ORDER BY owner, name LIMIT ?`,

	GetState: `SELECT value, updated_at FROM chronos_state WHERE name = ?`,

	ReleaseLease: `DELETE FROM chronos_leases WHERE name = ? AND holder = ?`,

	DeregisterWorker: `DELETE FROM workers WHERE id = ?`,
	ListWorkers:      sqlrow.ListWorkersSQL,

	ReplaceAlarm: `UPDATE alarms SET fire_at = ?, next_fire_at = ?, scheduled_for = ?, payload = ?, label = ?,
		wake_message = ?, failure_count = 0, last_error = '', updated_at = ?
		WHERE id = ? AND status = 'active' AND claimed_by IS NULL`,
	ReleaseKey: `UPDATE alarms SET idempotency_key = ?
		WHERE id = ? AND idempotency_key = ? AND NOT (status = 'active' AND claimed_by IS NULL)`,
}

// Numbered is s with the "?" of each statement numbered $1, $2, ... in order, for a
// dialect that numbers its placeholders (PostgreSQL). None of the statements has a "?"
// in a literal.
func (s Statements) Numbered() Statements {
	v := reflect.ValueOf(&s).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		var b strings.Builder
		n := 0
		for _, r := range f.String() {
			if r == '?' {
				n++
				b.WriteString("$" + strconv.Itoa(n))
				continue
			}
			b.WriteRune(r)
		}
		f.SetString(b.String())
	}
	return s
}
