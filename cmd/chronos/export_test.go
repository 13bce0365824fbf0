package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/transfer/transfertest"
	"github.com/chronoshq/chronos/ports"
	"github.com/chronoshq/chronos/test/contract"
)

// A SQLite cluster in every state moves, through `chronos export` and `chronos
// import`, to a new PostgreSQL database, from there to a new MySQL/MariaDB one and from
// there back to a new SQLite file: after each move every alarm field by field (its
// state, series options, endpoint, idempotency key, payload byte for byte), every
// stored event with every field, its attempt's receipt included (the attempt log:
// duration, status, content type, body, cut or not), every history and attempt log,
// endpoint (secrets and stamps), token, calendar and moved cluster value read the same
// as in the first store, and a series still skips the day its calendar excludes; only
// the old cluster's leases are cleared. No output shows a secret. Then the refusals: a
// non-empty target, duplicates with --into-nonempty, an existing export file.
func TestExportImportChainSQLitePostgresMySQLSQLite(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	srcURL := "sqlite://" + filepath.Join(dir, "old.db")
	src, err := openStore(ctx, srcURL, true)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f := transfertest.Fill(t, src)

	from, fromKind := srcURL, "sqlite"
	for i, target := range []struct {
		name   string
		create func(t *testing.T) string
	}{
		{"postgres", newPostgresDatabase},
		{"mysql", newMySQLDatabase},
		{"sqlite", func(t *testing.T) string { return "sqlite://" + filepath.Join(t.TempDir(), "new.db") }},
	} {
		file := filepath.Join(dir, fmt.Sprintf("cluster-%d.jsonl", i))
		code, stdout, stderr := runChronos(t, "export", "--store", from, "--to", file)
		if code != 0 {
			t.Fatalf("export of the %s store: exit %d, stderr %q", fromKind, code, stderr)
		}
		if !strings.Contains(stdout, "exported 10 alarms") || !strings.Contains(stdout, "2 endpoints, 3 tokens, 2 calendars, 2 cluster values") {
			t.Errorf("export of the %s store said %q, want the counts", fromKind, stdout)
		}
		noSecrets(t, "export", stdout+stderr)
		if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("the export file: %v, mode %v; want mode 0600 (it holds secrets)", err, st.Mode().Perm())
		}
		if i == 0 {
			if code, _, stderr := runChronos(t, "export", "--store", srcURL, "--to", file); code != 1 || !strings.Contains(stderr, "exists") {
				t.Errorf("export over an existing file: exit %d, stderr %q; want exit 1, refused", code, stderr)
			}
			if code, _, stderr := runChronos(t, "export", "--store", srcURL); code != 2 || !strings.Contains(stderr, "--to") {
				t.Errorf("export without --to: exit %d, stderr %q; want exit 2 asking for --to", code, stderr)
			}
		}

		dstURL := target.create(t)
		code, stdout, stderr = runChronos(t, "import", "--store", dstURL, "--from", file)
		if code != 0 {
			t.Fatalf("import into %s: exit %d, stderr %q", target.name, code, stderr)
		}
		leases := "cleared 2 leases"
		if i > 0 {
			leases = "" // the first import cleared them
		}
		if !strings.Contains(stdout, "imported 10 alarms") || !strings.Contains(stdout, "from a "+fromKind+" export") ||
			!strings.Contains(stdout, leases) || !strings.Contains(stdout, "3 tokens, 2 calendars") {
			t.Errorf("import into %s said %q, want the counts, the source and the leases cleared", target.name, stdout)
		}
		noSecrets(t, "import", stdout+stderr)
		dst, err := openStore(ctx, dstURL, false)
		if err != nil {
			t.Fatal(err)
		}
		defer dst.Close()
		transfertest.Compare(t, src.(ports.Exporter), dst.(ports.Exporter), src, dst, time.Millisecond)
		transfertest.SkipsExcluded(t, dst, f)
		if t.Failed() {
			t.Fatalf("the move %s → %s lost something (above)", fromKind, target.name)
		}

		code, _, stderr = runChronos(t, "import", "--store", dstURL, "--from", file)
		if code != 1 || !strings.Contains(stderr, "not empty") || !strings.Contains(stderr, "--into-nonempty") {
			t.Errorf("import into the filled %s target: exit %d, stderr %q; want exit 1, refused as not empty", target.name, code, stderr)
		}
		code, _, stderr = runChronos(t, "import", "--store", dstURL, "--from", file, "--into-nonempty")
		if code != 1 || !strings.Contains(stderr, "holds a token with this id or hash") || !strings.Contains(stderr, "line ") {
			t.Errorf("import --into-nonempty of the same file into %s: exit %d, stderr %q; want exit 1 naming the duplicate and its line", target.name, code, stderr)
		}
		noSecrets(t, "refused import", stderr)
		from, fromKind = dstURL, target.name
	}
	// The last store is a cluster like any other: it dedupes on the old keys.
	last, err := openStore(ctx, from, false)
	if err != nil {
		t.Fatal(err)
	}
	defer last.Close()
	got, deduped, err := contract.CreateOne(ctx, last, withID(f.Keyed, "0190f0c0-0000-7000-8000-999999999999"))
	if err != nil || !deduped || got.ID != f.Keyed.ID {
		t.Errorf("a create with an imported idempotency key: %s deduped=%v (%v), want %s deduped", got.ID, deduped, err, f.Keyed.ID)
	}
}

func withID(a domain.Alarm, id string) domain.Alarm { a.ID = id; return a }

// noSecrets fails t when a command's output shows an endpoint secret.
func noSecrets(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range transfertest.Secrets {
		if strings.Contains(out, s[len(s)-12:]) {
			t.Errorf("%s printed an endpoint secret: %q", what, out)
		}
	}
}

func testDBName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "chronos_export_" + hex.EncodeToString(b[:])
}

// unreachableDB skips the case, or fails it under CI=true, when a test server is down.
func unreachableDB(t *testing.T, what string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is unreachable (CI=true requires it): %v", what, err)
	}
	t.Skipf("%s is unreachable, skipping: %v", what, err)
}

// newPostgresDatabase creates a database on the test server (CHRONOS_TEST_POSTGRES_URL
// or the local one), drops it when t ends, and returns its store URL.
func newPostgresDatabase(t *testing.T) string {
	t.Helper()
	base := os.Getenv("CHRONOS_TEST_POSTGRES_URL")
	if base == "" {
		base = "postgres://root@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		unreachableDB(t, "PostgreSQL", err)
	}
	defer conn.Close(context.Background())
	name := testDBName()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() { // after the stores' Close (cleanups run last registered first)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("dropping database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
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

// newMySQLDatabase creates a database on the test server (CHRONOS_TEST_MYSQL_URL or the
// local one), drops it when t ends, and returns its store URL.
func newMySQLDatabase(t *testing.T) string {
	t.Helper()
	base := os.Getenv("CHRONOS_TEST_MYSQL_URL")
	if base == "" {
		base = "mysql://root@127.0.0.1:3306/mysql"
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg := gomysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = "tcp", u.Host, u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		unreachableDB(t, "MySQL/MariaDB", err)
	}
	name := testDBName()
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
	u.Path = "/" + name
	return u.String()
}
