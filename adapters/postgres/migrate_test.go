package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/chronoshq/chronos/migrations"
	"github.com/chronoshq/chronos/ports"
)

// A store opened without Migrate on a schema that is not at this binary's version is
// refused, with both versions and the way out in the message, and nothing is written.
func TestOpenRefusesUnmigratedSchema(t *testing.T) {
	u := newSchema(t)
	ctx := context.Background()
	want, err := latestVersion()
	if err != nil {
		t.Fatal(err)
	}

	_, err = Open(ctx, u, Options{})
	if !errors.Is(err, ports.ErrSchemaVersion) {
		t.Fatalf("Open on an empty schema: error = %v, want ErrSchemaVersion", err)
	}
	for _, part := range []string{"version 0", fmt.Sprintf("expects %d", want), "chronos migrate"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not say %q", err, part)
		}
	}
	s := openStore(t, u, Options{Migrate: true}) // also proves the refusal created nothing in the way
	var tables int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 12 { // eleven of ours (alarm_tags: 00012; calendars, series_calendars: 00013) and goose's
		t.Errorf("schema holds %d tables after migrating, want 12", tables)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	u := newSchema(t)
	ctx := context.Background()
	s := openStore(t, u, Options{Migrate: true})
	if _, err := s.pool.Exec(ctx, `INSERT INTO `+versionTable+` (version_id, is_applied) VALUES (99999, true)`); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, u, Options{})
	if !errors.Is(err, ports.ErrSchemaVersion) || !strings.Contains(err.Error(), "version 99999") {
		t.Fatalf("Open on a newer schema: error = %v, want ErrSchemaVersion naming 99999", err)
	}
}

// Nodes starting together all run Migrate; the advisory lock makes one of them do it
// and the others find it done.
func TestMigrateConcurrentlyAndTwice(t *testing.T) {
	u := newSchema(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() { errs <- Migrate(ctx, u) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Migrate: %v", err)
		}
	}
	if err := Migrate(ctx, u); err != nil {
		t.Errorf("Migrate of a migrated schema: %v", err)
	}
	openStore(t, u, Options{}) // at the latest version: no Migrate needed
}

func TestOpenRejectsOtherSchemes(t *testing.T) {
	for _, u := range []string{"mysql://root@127.0.0.1/db", "sqlite://x.db", "host=127.0.0.1"} {
		if _, err := Open(context.Background(), u, Options{}); err == nil || !strings.HasPrefix(err.Error(), "postgres: ") {
			t.Errorf("Open(%q): error = %v, want a postgres: error", u, err)
		}
	}
}

// A search_path naming no existing schema is an operator's typo; both entry points
// say so instead of creating tables somewhere else.
func TestMissingSchemaIsExplained(t *testing.T) {
	adminPool(t)
	u, err := url.Parse(testURL())
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", "chronos_test_no_such_schema")
	u.RawQuery = q.Encode()

	if err := Migrate(context.Background(), u.String()); err == nil || !strings.Contains(err.Error(), "create it") {
		t.Errorf("Migrate: error = %v, want one saying to create the schema", err)
	}
	if _, err := Open(context.Background(), u.String(), Options{}); !errors.Is(err, ports.ErrSchemaVersion) || !strings.Contains(err.Error(), "create it") {
		t.Errorf("Open: error = %v, want ErrSchemaVersion saying to create the schema", err)
	}
}

// gooseOn is a database/sql handle on the schema at u, closed with the test, and
// goose's provider on it.
func gooseOn(t *testing.T, u string) (*sql.DB, *goose.Provider) {
	t.Helper()
	cfg, err := parseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg.ConnConfig.Copy())
	t.Cleanup(func() { _ = db.Close() })
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.Postgres(), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	return db, p
}
