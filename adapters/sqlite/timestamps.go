package sqlite

import (
	"database/sql"
	"time"
)

// Timestamps are stored as INTEGER unix milliseconds in UTC, NULL for the zero time (see
// the migration). Everything written is truncated to the millisecond first, and callers
// get back the truncated value, so what they hold equals what a later read returns: a
// lease built from ClaimDue's result fences the row exactly.

// trunc returns t as stored: UTC, millisecond precision, zero kept zero.
func trunc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}

// toDB is the column value of t: unix milliseconds, or NULL for the zero time.
func toDB(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// fromDB turns a column value back into a time, NULL into the zero time.
func fromDB(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64).UTC()
}
