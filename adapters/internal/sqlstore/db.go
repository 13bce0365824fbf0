package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
)

// DB runs statements: a pool, a connection or a transaction, of database/sql or pgx.
// Its errors are the driver's.
type DB interface {
	// Exec runs a statement and returns how many rows it changed (or matched, where the
	// driver counts so).
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	QueryRow(ctx context.Context, query string, args ...any) sqlrow.Scanner
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Rows is a result of many rows; Close releases it.
type Rows interface {
	sqlrow.Rows
	Close()
}

// List runs q on db and reads every row with scan; the slice is never nil.
func List[E any](ctx context.Context, db DB, scan func(sqlrow.Scanner) (E, error), q string, args ...any) ([]E, error) {
	rows, err := db.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, 0, scan)
}

// one runs q on db and reads its one row with scan; no row is notFound, any other error
// the driver's.
func one[E any](ctx context.Context, db DB, scan func(sqlrow.Scanner) (E, error), notFound error, q string, args ...any) (E, error) {
	v, err := scan(db.QueryRow(ctx, q, args...))
	if errors.Is(err, sql.ErrNoRows) {
		var none E
		return none, notFound
	}
	return v, err
}

// StdQuerier is what database/sql's *sql.DB, *sql.Conn and *sql.Tx share.
type StdQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Std is a database/sql pool, connection or transaction as a DB.
func Std(q StdQuerier) DB { return std{q} }

type std struct{ q StdQuerier }

func (s std) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return sqlrow.Affected(s.q.ExecContext(ctx, query, args...))
}

func (s std) QueryRow(ctx context.Context, query string, args ...any) sqlrow.Scanner {
	return s.q.QueryRowContext(ctx, query, args...)
}

func (s std) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	rows, err := s.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return stdRows{rows}, nil
}

// stdRows closes without an error to report: a read error surfaces through Err.
type stdRows struct{ *sql.Rows }

func (r stdRows) Close() { _ = r.Rows.Close() }
