package mysql

import (
	"database/sql"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
)

// engineSQL is MySQL's and MariaDB's text for the shared engine (sqlstore.Statements
// documents each statement's arguments). A now argument is the injected clock's time
// or NULL, which COALESCE turns into the database clock.
//
// REPLACE rather than INSERT ... ON DUPLICATE KEY UPDATE where a row is wholly new: the
// VALUES() form is deprecated on MySQL and its replacement (row aliases) does not exist
// on MariaDB.
var engineSQL = sqlstore.Statements{
	// The old admin column is still written, for binaries that predate scopes
	// (migration 00003).
	CreateToken:     `INSERT INTO api_tokens (` + sqlrow.TokenColumns + `, admin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	TokenByHash:     `SELECT ` + sqlrow.TokenColumns + ` FROM api_tokens WHERE hash = ?`,
	ListOwnerTokens: `SELECT ` + sqlrow.TokenColumns + ` FROM api_tokens WHERE owner = ? ORDER BY created_at, id`, // api_tokens_owner
	ListTokens:      sqlrow.ListTokensSQL,
	// clientFoundRows makes RowsAffected count the matched row even when nothing changed.
	RevokeToken: `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?, UTC_TIMESTAMP(6)) WHERE id = ?`,
	TouchToken: `UPDATE api_tokens SET last_used_at = ?
		WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,

	CreateSession:         `INSERT INTO ui_sessions (hash, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?)`,
	SessionByHash:         `SELECT token_hash, created_at, expires_at FROM ui_sessions WHERE hash = ?`,
	DeleteSession:         `DELETE FROM ui_sessions WHERE hash = ?`,
	DeleteExpiredSessions: `DELETE FROM ui_sessions WHERE expires_at <= ? ORDER BY expires_at LIMIT ?`,

	GetState: `SELECT value, updated_at FROM chronos_state WHERE name = ?`,
	PutState: `REPLACE INTO chronos_state (name, value, updated_at) VALUES (?, ?, COALESCE(?, UTC_TIMESTAMP(6)))`,

	RegisterWorker: `REPLACE INTO workers (` + sqlrow.WorkerColumns + `)
		VALUES (?, ?, ?, ?, ?, COALESCE(?, UTC_TIMESTAMP(6)), COALESCE(?, UTC_TIMESTAMP(6)))`,
	Heartbeat:        `UPDATE workers SET heartbeat_at = COALESCE(?, UTC_TIMESTAMP(6)), stats = ? WHERE id = ?`,
	DeregisterWorker: `DELETE FROM workers WHERE id = ?`,
	ListWorkers:      sqlrow.ListWorkersSQL,
}

// newEngine is the shared engine on the store's pool.
func (s *Store) newEngine() sqlstore.Engine[sql.NullTime] {
	db := sqlstore.Std(s.db)
	return sqlstore.Engine[sql.NullTime]{
		Name: "mysql", SQL: &engineSQL, Read: db, Write: db,
		MapError: mapError,
		TimeArg:  timeArg,
		ToTime:   sqlrow.NullTime,
		NowArg:   s.injectedNow,
	}
}
