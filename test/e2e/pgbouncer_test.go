//go:build e2e

package e2e

import (
	"context"
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

// newPooledPostgresDatabase creates a database of its own on the server base names,
// with the settings docs/postgres.md has an operator give chronos's role behind a
// transaction pooler, and returns its direct URL. A database rather than a schema:
// PgBouncer refuses search_path as a startup parameter.
func newPooledPostgresDatabase(t *testing.T, base string) string {
	t.Helper()
	direct := pgtest.NewDatabase(t, base)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	database := pgx.Identifier{conn.Config().Database}.Sanitize()
	for _, setting := range []string{"plan_cache_mode = force_generic_plan", "enable_seqscan = off", "enable_bitmapscan = off", "jit = off"} {
		if _, err := conn.Exec(ctx, "ALTER ROLE CURRENT_USER IN DATABASE "+database+" SET "+setting); err != nil {
			t.Fatalf("role settings: %v", err)
		}
	}
	return direct
}
