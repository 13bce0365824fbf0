package sqlstore

// Statements is a dialect's SQL for the engine. Each names the arguments the engine
// passes, in order; a dialect that numbers its placeholders may use one twice.
type Statements struct {
	// GetAlarm: id; selects sqlrow.AlarmColumns.
	GetAlarm string
	// AlarmEvents: id, limit; selects the alarm's owner, created_at and fire_at, then the
	// event's id, type, at, attempt, scheduled_for, worker and message, oldest event first
	// (NULLs when the alarm has none), at most limit events.
	AlarmEvents string
	// AlarmOwner: id; selects the alarm's owner.
	AlarmOwner string
	// Attempts: id, before, limit; selects id and sqlrow.EventColumns, then
	// sqlrow.ReceiptColumns, of the alarm's events before the event id before that are
	// attempts (duration_us not NULL), newest first, walking (alarm_id, id) backwards.
	Attempts string
	// Define: label, cron_expr, timezone, wake_message, payload, max_failures, series, id.
	Define string

	// CreateToken: id, owner, scope, hash, note, created_at, revoked_at, last_used_at,
	// and the old admin column (for binaries that predate scopes).
	CreateToken string
	// TokenByHash: hash. ListOwnerTokens: owner. ListTokens: none. All select
	// sqlrow.TokenColumns.
	TokenByHash, ListOwnerTokens, ListTokens string
	// RevokeToken: now, id; keeps an earlier revocation.
	RevokeToken string
	// TouchToken: at, id, staleBefore.
	TouchToken string

	// CreateSession: hash, token_hash, created_at, expires_at.
	CreateSession string
	// SessionByHash: hash; selects token_hash, created_at, expires_at.
	SessionByHash string
	// DeleteSession: hash. DeleteExpiredSessions: before, limit.
	DeleteSession, DeleteExpiredSessions string

	// NextDue: none; selects the earliest next_fire_at of the unleased active alarms, no
	// row or NULL when there is none.
	NextDue string
	// DuePauses: now, limit; selects the ids of paused alarms whose pause ended, earliest
	// end first.
	DuePauses string
	// CountActive: owner, at most; counts the owner's alarms in domain.QuotaStatuses.
	CountActive string

	// CreateEndpoint: sqlrow.EndpointValues, created_at, updated_at.
	CreateEndpoint string
	// GetEndpoint and LockEndpoint (locked until the transaction ends): owner, name.
	// ListOwnerEndpoints: owner. All select sqlrow.EndpointColumns.
	GetEndpoint, LockEndpoint, ListOwnerEndpoints string
	// UpdateEndpoint: url, secrets, timeout_ms, max_in_flight, rate_per_second,
	// failure_url, updated_at, owner, name.
	UpdateEndpoint string
	// DeleteEndpoint: owner, name.
	DeleteEndpoint string

	// InsertCalendar: owner, name, timezone, exclusions, created_at, updated_at.
	// UpdateCalendar: timezone, exclusions, updated_at, owner, name (counting the row
	// matched even when nothing changed).
	InsertCalendar, UpdateCalendar string
	// GetCalendar and LockCalendar (locked until the transaction ends): owner, name.
	// ListCalendars: owner, by name. CalendarsNamed: owner, then CalendarsPerRead
	// names (some repeated), by name, each row once. All select sqlrow.CalendarColumns.
	GetCalendar, LockCalendar, ListCalendars, CalendarsNamed string
	// CountCalendars: owner, at most; counts the owner's calendars, at most that many,
	// walking the primary key.
	CountCalendars string
	// DeleteCalendar and DeleteCalendarLinks (its series_calendars rows): owner, name.
	DeleteCalendar, DeleteCalendarLinks string
	// CalendarUser: owner, name; selects the id of an active or paused series in the
	// calendar's series_calendars rows, walking that key joined to alarms by id.
	CalendarUser string
	// LinkCalendars: sqlrow.EncodeLinks text; inserts those series_calendars rows, one
	// statement for a whole batch. UnlinkCalendar: owner, calendar, series_id.
	LinkCalendars, UnlinkCalendar string

	// ExportAlarms: after, limit; selects sqlrow.AlarmColumns by id.
	ExportAlarms string
	// ExportEvents: after's alarm id, through, after's alarm id, after's event id,
	// limit; selects id and sqlrow.EventRowColumns (the receipt too) by (alarm_id, id).
	ExportEvents string
	// ExportCalendars: after's owner, after's owner, after's name, limit; selects
	// sqlrow.CalendarColumns by (owner, name).
	ExportCalendars string

	// The chores (retention.go).
	//
	// ExpiredAlarms: before, limit; takes a batch of expired terminal alarms that no
	// lease holds, oldest change first, for the deletion (locks them, or deletes their
	// rows, as DeleteChosen expects) and selects their ids.
	ExpiredAlarms string
	// ReleaseLease: name, holder.
	ReleaseLease string

	// GetState: name; selects value, updated_at. PutState: name, value, now.
	GetState, PutState string
	// InsertState: name, value, now; fails on a taken name. SwapState: value, now,
	// name, old; updates the row only while its value is byte for byte old.
	InsertState, SwapState string

	// RegisterWorker: id, host, pid, version, stats, now, now (started and beating).
	RegisterWorker string
	// Heartbeat: now, stats, id. DeregisterWorker: id. ListWorkers: none.
	Heartbeat, DeregisterWorker, ListWorkers string

	// The write paths' statements (Engine.Apply, Engine.ExtendLease).

	// InsertAlarm: Engine.AlarmArgs; inserts one alarm (Apply's notices, which have no
	// idempotency key), failing on a taken id.
	InsertAlarm string
	// ExtendLease: the new claimed_at, id, the fence's worker and claimed_at; moves a
	// lease fenced on it, counting the row even when the value did not change.
	ExtendLease string

	// The replace of a debounced create (Engine.CreateBatch, debounce.go), each by
	// primary key.
	//
	// ReplaceAlarm: fire_at, next_fire_at, scheduled_for, payload, label, wake_message,
	// updated_at, id; writes them, with failure_count 0 and last_error '', only while
	// the alarm is active and unleased.
	ReplaceAlarm string
	// ReleaseKey: the empty key (NullKeys: NULL), id, the key; takes the key from the
	// alarm unless it is active and unleased.
	ReleaseKey string
}
