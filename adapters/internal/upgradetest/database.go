package upgradetest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Database is a new, empty database of one store, as the scenarios drive it: they
// migrate it to the version they start from, write what an older release wrote with
// the store's own SQL, upgrade it by opening a store S on it, and roll it back.
type Database[S ports.Store] struct {
	// DB is a connection to the database, closed when the test ends.
	DB *sql.DB
	// Provider migrates the database through DB.
	Provider *goose.Provider
	// Open migrates the database to the latest version and opens a store on it, on
	// clock (nil: the store's own). The scenario closes it before it migrates again.
	Open func(ctx context.Context, clock ports.Clock) (S, error)
	// Placeholders is n bind parameters of the store's dialect, comma-separated.
	Placeholders func(n int) string
	// Time is a time as the store binds it.
	Time func(time.Time) any
	// AlarmArgs is an alarm's values in sqlrow.AlarmColumns order, as the store binds them.
	AlarmArgs func(domain.Alarm) []any
	// ColumnSQL counts the columns of the table its first parameter names that are
	// named its second; IndexSQL counts what describes the index of alarms its one
	// parameter names (nothing: there is no such index).
	ColumnSQL, IndexSQL string
	// Written, when set, runs once the rows are written and before the upgrade, with
	// the version the database is at (PostgreSQL checks there that the next migration
	// leaves the alarms table's rows where they are).
	Written func(t *testing.T, from int64)
}

// At migrates d up to version and returns d.
func (d Database[S]) At(t *testing.T, version int64) Database[S] {
	t.Helper()
	if _, err := d.Provider.UpTo(t.Context(), version); err != nil {
		t.Fatalf("migrate to %d: %v", version, err)
	}
	return d
}

// DownTo rolls d back to version.
func (d Database[S]) DownTo(t *testing.T, version int64) {
	t.Helper()
	if _, err := d.Provider.DownTo(t.Context(), version); err != nil {
		t.Fatalf("migrate down to %d: %v", version, err)
	}
}

// Up migrates d to the latest version.
func (d Database[S]) Up(t *testing.T) {
	t.Helper()
	if _, err := d.Provider.Up(t.Context()); err != nil {
		t.Fatalf("migrate up: %v", err)
	}
}

// Exec runs statement, failing t on an error.
func (d Database[S]) Exec(t *testing.T, statement string, args ...any) {
	t.Helper()
	if _, err := d.DB.ExecContext(t.Context(), statement, args...); err != nil {
		t.Fatalf("%s: %v", statement, err)
	}
}

// Store migrates d to the latest version and opens a store on it, on clock.
func (d Database[S]) Store(t *testing.T, clock ports.Clock) S {
	t.Helper()
	s, err := d.Open(t.Context(), clock)
	if err != nil {
		t.Fatalf("Open (migrating to the latest): %v", err)
	}
	return s
}

// Columns is how many of names table has.
func (d Database[S]) Columns(t *testing.T, table string, names ...string) int {
	t.Helper()
	n := 0
	for _, name := range names {
		n += d.count(t, d.ColumnSQL, table, name)
	}
	return n
}

// Indexed is whether an index of alarms is named index.
func (d Database[S]) Indexed(t *testing.T, index string) bool {
	t.Helper()
	return d.count(t, d.IndexSQL, index) != 0
}

func (d Database[S]) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := d.DB.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// closeStore closes s, which must succeed: the scenario migrates next.
func closeStore(t *testing.T, s ports.Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}
