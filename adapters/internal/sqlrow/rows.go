// Package sqlrow reads and writes the rows of chronos's tables the same way in every SQL
// store: the column lists, the scanners, and the values of an event row. What the
// databases really differ in is passed in: how a driver reads a time column that may be
// NULL (pgtype.Timestamptz, sql.NullTime, unix milliseconds in sql.NullInt64) and a text
// column that may be NULL. The scanners take a Scanner, which *sql.Row, *sql.Rows,
// pgx.Row and pgx.Rows all are.
package sqlrow

import (
	"context"
	"database/sql"
	"time"
)

// Scanner is one row: *sql.Row, *sql.Rows, pgx.Row or pgx.Rows.
type Scanner interface {
	Scan(dest ...any) error
}

// Rows is a result of many rows: *sql.Rows or pgx.Rows. Closing it stays the caller's
// (the two Close methods differ).
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// All reads every row of rs with scan, in order, into a slice of capacity hint (a
// claim knows how many rows it asked for). The slice is never nil.
func All[E any](rs Rows, hint int, scan func(Scanner) (E, error)) ([]E, error) {
	out := make([]E, 0, hint)
	for rs.Next() {
		e, err := scan(rs)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rs.Err()
}

// NullString is a nullable text column read by database/sql: "" for NULL.
func NullString(s sql.NullString) string { return s.String }

// NullTime is a nullable time column read by database/sql: zero for NULL.
func NullTime(t sql.NullTime) time.Time { return t.Time }

// Affected is how many rows a statement run through database/sql changed (or matched,
// where the driver counts so): its ExecContext's result and error, read in one step. pgx
// returns the count in its command tag instead.
func Affected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Querier runs a query through database/sql: *sql.DB, *sql.Conn or *sql.Tx.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Query runs q through database/sql and reads every row with scan, as All does, closing
// the result. Its errors are the driver's, for the store's mapError.
func Query[E any](ctx context.Context, db Querier, scan func(Scanner) (E, error), q string, args ...any) ([]E, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return All(rows, 0, scan)
}
