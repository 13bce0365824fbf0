package e2e

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// storeKind names a store the scenarios run on.
type storeKind string

const (
	onSQLite   storeKind = "sqlite"
	onPostgres storeKind = "postgres"
	onMySQL    storeKind = "mysql"
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// newStoreURL makes a fresh, empty store of kind for one test and drops it when the
// test ends (after the nodes, which are registered later and so stopped first).
func newStoreURL(t *testing.T, kind storeKind) string {
	t.Helper()
	switch kind {
	case onSQLite:
		return "sqlite://" + filepath.Join(t.TempDir(), "chronos.db")
	case onPostgres:
		return newPostgresSchema(t)
	case onMySQL:
		return newMySQLDatabase(t)
	}
	t.Fatalf("unknown store kind %q", kind)
	return ""
}

// unreachable fails the test in CI and skips it elsewhere, saying why.
func unreachable(t *testing.T, what string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is unreachable (CI=true requires it): %v", what, err)
	}
	t.Skipf("%s is unreachable, skipping: %v", what, err)
}

func uniqueName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "chronos_e2e_" + hex.EncodeToString(b[:])
}

// newPostgresSchema creates a schema of its own on CHRONOS_TEST_POSTGRES_URL and returns
// a store URL whose search_path selects it.
func newPostgresSchema(t *testing.T) string {
	t.Helper()
	base := envOr("CHRONOS_TEST_POSTGRES_URL", "postgres://root@127.0.0.1:5432/postgres")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err == nil {
		err = conn.Ping(ctx)
	}
	if err != nil {
		unreachable(t, "PostgreSQL", err)
	}
	defer conn.Close(context.Background())
	schema := uniqueName()
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// newMySQLDatabase creates a database of its own on CHRONOS_TEST_MYSQL_URL and returns
// the store URL naming it.
func newMySQLDatabase(t *testing.T) string {
	t.Helper()
	base := envOr("CHRONOS_TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/test")
	cfg, err := mysqlAdminConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		unreachable(t, "MySQL/MariaDB", err)
	}
	name := uniqueName()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4"); err != nil {
		db.Close()
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE `"+name+"`"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// mysqlAdminConfig is the driver configuration for the server a mysql:// store URL
// names, without a database: enough to create and drop one.
func mysqlAdminConfig(storeURL string) (*mysql.Config, error) {
	u, err := url.Parse(storeURL)
	if err != nil {
		return nil, err
	}
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = u.Host
	if u.Port() == "" {
		cfg.Addr = net.JoinHostPort(u.Hostname(), "3306")
	}
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	return cfg, nil
}
