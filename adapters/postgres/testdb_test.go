package postgres

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/internal/pgtest"
	"github.com/chronoshq/chronos/internal/storeurl"
	"github.com/chronoshq/chronos/ports"
)

// Tests run against a real PostgreSQL: CHRONOS_TEST_POSTGRES_URL, or the local server
// every development and CI machine runs. Each test gets a schema of its own (much
// faster to create and drop than a database), selected through the URL's search_path
// exactly as an operator would put chronos in a schema of its own.
func testURL() string {
	return storetest.ServerURL("CHRONOS_TEST_POSTGRES_URL", "postgres://root@127.0.0.1:5432/postgres")
}

var admin struct {
	once sync.Once
	pool *pgxpool.Pool
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if admin.pool != nil {
		admin.pool.Close()
	}
	os.Exit(code)
}

// adminPool is a pool on the test server for creating and dropping schemas. When the
// server cannot be reached the test fails under CI=true and is skipped otherwise.
func adminPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	admin.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		admin.pool, admin.err = pgxpool.New(ctx, testURL())
		if admin.err == nil {
			admin.err = admin.pool.Ping(ctx)
		}
	})
	if admin.err != nil {
		storetest.Unreachable(t, "PostgreSQL at "+storeurl.Redact(testURL())+" (set CHRONOS_TEST_POSTGRES_URL)", admin.err)
	}
	return admin.pool
}

// newSchema creates an empty schema with a unique name, drops it when t ends, and
// returns the test URL with search_path and application_name set to it.
func newSchema(t testing.TB) string {
	t.Helper()
	pool := adminPool(t)
	schema := storetest.UniqueName(t, "chronos_test_")
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		if _, err := pool.Exec(context.Background(), `DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	// The application name lets a test find its own backends in pg_stat_activity,
	// and only its own, whatever else shares the server.
	return storetest.WithQuery(t, testURL(), "search_path", schema, "application_name", schema)
}

// openStore opens a Store on url and closes it when t ends (before the schema is
// dropped: cleanups run last registered, first run).
func openStore(t testing.TB, url string, opts Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), url, opts)
	return storetest.Opened(t, s, err)
}

// newTestStore is a migrated store on a fresh schema.
func newTestStore(t testing.TB, clock ports.Clock) (*Store, string) {
	t.Helper()
	u := newSchema(t)
	return openStore(t, u, Options{Clock: clock, Migrate: true}), u
}

// newDatabase is a database of its own on the test server, dropped when t ends, for
// what a schema will not do (a pooler, a second database).
func newDatabase(t testing.TB) string {
	t.Helper()
	adminPool(t)
	return pgtest.NewDatabase(t, testURL())
}

// dbClockStore is a migrated store on a fresh schema and the database clock, as in
// production, and that clock's now.
func dbClockStore(t testing.TB) (*Store, time.Time) {
	t.Helper()
	s, _ := newTestStore(t, nil)
	now, err := s.Now(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s, now
}
