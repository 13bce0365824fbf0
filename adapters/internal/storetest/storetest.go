// Package storetest is what the SQL stores' tests share besides the contract suite:
// reaching the test server, throwaway databases' names, the contract harness for a
// store that opens by URL, and reading rows back. Imported by tests only.
package storetest

import (
	"database/sql"
	"testing"
)

// Count is the one integer q reads, such as a COUNT(*); an error fails t.
func Count(t testing.TB, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
