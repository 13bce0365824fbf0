package mysql

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/storeurl"
)

// testURL is the server the tests use: CHRONOS_TEST_MYSQL_URL or the MariaDB every
// development and CI machine runs. Only its credentials, address and parameters are
// used; every test works in a database of its own, created and dropped by newDatabase.
func testURL() string {
	return storetest.ServerURL("CHRONOS_TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/test")
}

// adminDB is one pool on the test server, with no default database, for creating and
// dropping the tests' databases.
var adminDB = sync.OnceValues(func() (*sql.DB, error) {
	cc, err := parseURL(testURL())
	if err != nil {
		return nil, err
	}
	cfg := cc.driver
	cfg.DBName = ""
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
})

// requireServer returns the admin pool, or ends the test when the server is
// unreachable (storetest.Unreachable).
func requireServer(t *testing.T) *sql.DB {
	t.Helper()
	db, err := adminDB()
	if err != nil {
		storetest.Unreachable(t, "MySQL/MariaDB test server "+storeurl.Redact(testURL())+" (set CHRONOS_TEST_MYSQL_URL)", err)
	}
	return db
}

// newDatabase creates an empty database with a unique name, drops it when the test
// ends, and returns the store URL that points at it.
func newDatabase(t *testing.T) string {
	t.Helper()
	db := requireServer(t)
	name := storetest.UniqueName(t, "chronos_test_")
	if _, err := db.ExecContext(t.Context(), "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE "+name); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	return storetest.WithPath(t, testURL(), name)
}

// newDatabaseWith is newDatabase's URL with the query parameter key set to value.
func newDatabaseWith(t *testing.T, key, value string) string {
	t.Helper()
	return storetest.WithQuery(t, newDatabase(t), key, value)
}

// statusCounter is the value of the one server status variable that show, such as
// SHOW SESSION STATUS LIKE 'Com_stmt_execute', reads.
func statusCounter(t *testing.T, db *sql.DB, show string) int {
	t.Helper()
	var name string
	var n int
	if err := db.QueryRowContext(t.Context(), show).Scan(&name, &n); err != nil {
		t.Fatalf("%s: %v", show, err)
	}
	return n
}

// textRows runs q and returns its column names and every row, each value as text (NULL
// is not Valid): for reading what EXPLAIN says.
func textRows(t *testing.T, db *sql.DB, q string, args ...any) ([]string, [][]sql.NullString) {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]sql.NullString
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, out
}

// openTestStore opens a migrated store on a fresh database, its URL with the query
// parameters of pairs (name, value, ...) set; Close runs at cleanup.
func openTestStore(t *testing.T, opts Options, pairs ...string) (*Store, string) {
	t.Helper()
	u := newDatabase(t)
	if len(pairs) > 0 {
		u = storetest.WithQuery(t, u, pairs...)
	}
	opts.Migrate = true
	s, err := Open(t.Context(), u, opts)
	return storetest.Opened(t, s, err), u
}

// seededStore opens a test store on the fixed clock holding n alarms, the i-th made by
// alarm, and returns them in order.
func seededStore(t *testing.T, n int, alarm func(i int) domain.Alarm) (*Store, []domain.Alarm) {
	t.Helper()
	s, _ := openTestStore(t, Options{Clock: fixedClock(testNow)})
	as := make([]domain.Alarm, n)
	for i := range as {
		as[i] = alarm(i)
	}
	if err := s.CreateMany(t.Context(), as); err != nil {
		t.Fatal(err)
	}
	return s, as
}
