//go:build e2e

package e2e

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/internal/pgtest"
)

// TestPgBouncerNodeKills is the node-kills scenario through a PgBouncer in transaction
// mode: three nodes whose store URL goes through the bouncer (pooler=transaction), hints
// on a direct --store-listen-url, a random node SIGKILLed and restarted every 2–4 s.
// Every alarm is delivered, and no at-most-once alarm twice.
func TestPgBouncerNodeKills(t *testing.T) {
	base := envOr("CHRONOS_TEST_POSTGRES_URL", "postgres://root@127.0.0.1:5432/postgres")
	direct := newPooledPostgresDatabase(t, base)
	bouncer := pgtest.StartBouncer(t, base)
	runKillsOn(t, onPostgres, bouncer.URL(t, direct), faultFlags("--store-listen-url", direct),
		killPlan{nodes: 3, once: 1500, cron: 60, window: 15 * time.Second})
}

// newPooledPostgresDatabase creates a database of its own on the server base names, with
// the settings docs/postgres.md has an operator give chronos's role behind a
// transaction pooler, drops it when the test ends, and returns its direct URL. A
// database rather than a schema: PgBouncer refuses search_path as a startup parameter.
func newPooledPostgresDatabase(t *testing.T, base string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		unreachable(t, "PostgreSQL", err)
	}
	defer admin.Close(context.Background())
	name := uniqueName()
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("dropping database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE "+ident+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	for _, setting := range []string{"plan_cache_mode = force_generic_plan", "enable_seqscan = off", "enable_bitmapscan = off", "jit = off"} {
		if _, err := admin.Exec(ctx, "ALTER ROLE CURRENT_USER IN DATABASE "+ident+" SET "+setting); err != nil {
			t.Fatalf("role settings: %v", err)
		}
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
