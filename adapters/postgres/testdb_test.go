package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chronoshq/chronos/ports"
)

// Tests run against a real PostgreSQL: CHRONOS_TEST_POSTGRES_URL, or the local server
// every development and CI machine runs. Each test gets a schema of its own (much
// faster to create and drop than a database), selected through the URL's search_path
// exactly as an operator would put chronos in a schema of its own.
const defaultTestURL = "postgres://root@127.0.0.1:5432/postgres"

func testURL() string {
	if u := os.Getenv("CHRONOS_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return defaultTestURL
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
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL at %s is unreachable (CI=true requires it): %v", redactedTestURL(), admin.err)
		}
		t.Skipf("PostgreSQL at %s is unreachable, skipping (set CHRONOS_TEST_POSTGRES_URL): %v", redactedTestURL(), admin.err)
	}
	return admin.pool
}

func redactedTestURL() string {
	u, err := url.Parse(testURL())
	if err != nil {
		return "CHRONOS_TEST_POSTGRES_URL"
	}
	return u.Redacted()
}

// newSchema creates an empty schema with a unique name, drops it when t ends, and
// returns the test URL with search_path and application_name set to it.
func newSchema(t testing.TB) string {
	t.Helper()
	pool := adminPool(t)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "chronos_test_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		if _, err := pool.Exec(context.Background(), `DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(testURL())
	if err != nil {
		t.Fatalf("CHRONOS_TEST_POSTGRES_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	// The application name lets a test find its own backends in pg_stat_activity,
	// and only its own, whatever else shares the server.
	q.Set("application_name", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// openStore opens a Store on url and closes it when t ends (before the schema is
// dropped: cleanups run last registered, first run).
func openStore(t testing.TB, url string, opts Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), url, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// newTestStore is a migrated store on a fresh schema.
func newTestStore(t testing.TB, clock ports.Clock) (*Store, string) {
	t.Helper()
	u := newSchema(t)
	return openStore(t, u, Options{Clock: clock, Migrate: true}), u
}
