package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/adapters/internal/sqlstore"
)

// engineSQL is PostgreSQL's text for the shared engine (sqlstore.Statements documents
// each statement's arguments). A now argument is the injected clock's time or NULL,
// which coalesce turns into the database clock.
var engineSQL = sqlstore.Statements{
	// The admin flag that the scope replaced (migration 00004) is still written, so
	// binaries that predate scopes read it right.
	CreateToken: `INSERT INTO api_tokens (` + sqlrow.TokenColumns + `, admin)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
	TokenByHash:     `SELECT ` + sqlrow.TokenColumns + ` FROM api_tokens WHERE hash = $1`,
	ListOwnerTokens: `SELECT ` + sqlrow.TokenColumns + ` FROM api_tokens WHERE owner = $1 ORDER BY created_at, id`, // api_tokens_owner
	ListTokens:      sqlrow.ListTokensSQL,
	RevokeToken:     `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, $1::timestamptz, now()) WHERE id = $2`,
	TouchToken: `UPDATE api_tokens SET last_used_at = $1
		WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)`,

	CreateSession: `INSERT INTO ui_sessions (hash, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
	SessionByHash: `SELECT token_hash, created_at, expires_at FROM ui_sessions WHERE hash = $1`,
	DeleteSession: `DELETE FROM ui_sessions WHERE hash = $1`,
	DeleteExpiredSessions: `DELETE FROM ui_sessions WHERE hash IN
		(SELECT hash FROM ui_sessions WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,

	GetState: `SELECT value, updated_at FROM chronos_state WHERE name = $1`,
	PutState: `INSERT INTO chronos_state (name, value, updated_at) VALUES ($1, $2, coalesce($3::timestamptz, now()))
		ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,

	RegisterWorker: `INSERT INTO workers (` + sqlrow.WorkerColumns + `)
		VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()), coalesce($7::timestamptz, now()))
		ON CONFLICT (id) DO UPDATE SET
			host = excluded.host, pid = excluded.pid, version = excluded.version, stats = excluded.stats,
			started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
	Heartbeat:        `UPDATE workers SET heartbeat_at = coalesce($1::timestamptz, now()), stats = $2 WHERE id = $3`,
	DeregisterWorker: `DELETE FROM workers WHERE id = $1`,
	ListWorkers:      sqlrow.ListWorkersSQL,
}

// newEngine is the shared engine on the store's pool.
func (s *Store) newEngine() sqlstore.Engine[pgtype.Timestamptz] {
	db := pgxDB{s.pool}
	return sqlstore.Engine[pgtype.Timestamptz]{
		Name: "postgres", SQL: &engineSQL, Read: db, Write: db,
		MapError: mapError,
		TimeArg:  func(t time.Time) any { return timeArg(t) },
		ToTime:   tsTime,
		NowArg:   s.nowArg,
	}
}

// pgxQuerier is what a pgx pool, connection and transaction share.
type pgxQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// pgxDB is a pgx pool, connection or transaction as the engine's DB.
type pgxDB struct{ q pgxQuerier }

func (d pgxDB) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := d.q.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (d pgxDB) QueryRow(ctx context.Context, query string, args ...any) sqlrow.Scanner {
	return d.q.QueryRow(ctx, query, args...)
}

func (d pgxDB) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return d.q.Query(ctx, query, args...)
}
