package mysql

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// Every connection runs at READ COMMITTED with the session zone at UTC, and the store's
// now is the database's UTC clock.
func TestSessionSettings(t *testing.T) {
	s, _ := openTestStore(t, Options{})
	ctx := t.Context()
	// Hold several connections at once so more than one session is checked.
	var conns []*sql.Conn
	for range 3 {
		c, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		var zone, isolation string
		if err := c.QueryRowContext(ctx, "SELECT @@session.time_zone").Scan(&zone); err != nil {
			t.Fatal(err)
		}
		// MySQL 8 and MariaDB 11.1+ name it transaction_isolation, older MariaDB tx_isolation.
		err := c.QueryRowContext(ctx, "SELECT @@session.transaction_isolation").Scan(&isolation)
		if err != nil {
			err = c.QueryRowContext(ctx, "SELECT @@session.tx_isolation").Scan(&isolation)
		}
		if err != nil {
			t.Fatal(err)
		}
		if zone != "+00:00" || isolation != "READ-COMMITTED" {
			t.Errorf("session time_zone = %q, isolation = %q; want +00:00, READ-COMMITTED", zone, isolation)
		}
		c.Close()
	}

	now, err := s.Now(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if now.Location() != time.UTC || now.Sub(time.Now()).Abs() > time.Minute {
		t.Errorf("Now = %s, want the database's UTC clock, close to the local clock %s", now, time.Now().UTC())
	}
}

// Open without Migrate refuses a database that is not at the binary's schema version,
// saying which version it found and what to do.
func TestOpenChecksSchemaVersion(t *testing.T) {
	ctx := t.Context()
	u := newDatabase(t)

	_, err := Open(ctx, u, Options{})
	if !errors.Is(err, ports.ErrSchemaVersion) || !strings.Contains(err.Error(), "version 0") || !strings.Contains(err.Error(), "run chronos migrate") {
		t.Fatalf("Open on an empty database = %v, want ErrSchemaVersion naming version 0 and \"run chronos migrate\"", err)
	}
	// The check only reads: it created nothing.
	db := requireServer(t)
	var tables int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ?",
		strings.TrimPrefix(u[strings.LastIndex(u, "/"):], "/")).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("Open without Migrate created %d tables", tables)
	}

	if err := Migrate(ctx, u); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	s, err := Open(ctx, u, Options{})
	if err != nil {
		t.Fatalf("Open after Migrate: %v", err)
	}
	// A schema newer than the binary (a later chronos migrated it) is refused too.
	if _, err := s.db.ExecContext(ctx, "INSERT INTO "+versionTable+" (version_id, is_applied) VALUES (99999, TRUE)"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, u, Options{})
	if !errors.Is(err, ports.ErrSchemaVersion) || !strings.Contains(err.Error(), "99999") {
		t.Fatalf("Open on a newer schema = %v, want ErrSchemaVersion naming 99999", err)
	}
}

// Nodes started together with --migrate take turns on the migration lock; all succeed.
func TestConcurrentMigrate(t *testing.T) {
	u := newDatabase(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = Migrate(t.Context(), u) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Migrate #%d: %v", i, err)
		}
	}
	s, err := Open(t.Context(), u, Options{})
	if err != nil {
		t.Fatalf("Open after concurrent migrations: %v", err)
	}
	s.Close()
}

// The migration lock holds a connection while goose uses another, even in a pool of one.
func TestMigrateWithPoolOfOne(t *testing.T) {
	u := newDatabaseWith(t, "pool_max_conns", "1")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, u, Options{Migrate: true})
	if err != nil {
		t.Fatalf("Open with Migrate and pool_max_conns=1: %v", err)
	}
	defer s.Close()
	if n := s.db.Stats().MaxOpenConnections; n != 1 {
		t.Errorf("pool cap after migrating = %d, want the URL's 1 back", n)
	}
}

func TestOpenUnreachableServer(t *testing.T) {
	// A port nothing listens on: connection refused, quickly.
	_, err := Open(t.Context(), "mysql://root@127.0.0.1:1/test?timeout=2s", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "mysql: ") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("Open on a closed port = %v, want a mysql: error naming the address", err)
	}
}
