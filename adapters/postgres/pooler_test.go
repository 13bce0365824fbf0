package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/internal/pgtest"
	"github.com/chronoshq/chronos/ports"
)

// TestContractThroughPgBouncer runs the store conformance suite through a PgBouncer in
// transaction mode, each case on a database of its own (a schema of its own would need
// search_path as a startup parameter, which PgBouncer refuses), migrated through the
// bouncer too, with hints on a direct listen URL.
func TestContractThroughPgBouncer(t *testing.T) {
	adminPool(t)
	bouncer := pgtest.StartBouncer(t, testURL())
	storetest.Contract(t, func(t *testing.T) direct {
		listen := newPooledDatabase(t)
		return direct{url: bouncer.URL(t, listen), listenURL: listen}
	}, openDirect)
}

// newPooledDatabase is newDatabase with the session settings made the defaults of the
// test's role in it, with the statement docs/postgres.md gives an operator.
func newPooledDatabase(t testing.TB) string {
	t.Helper()
	direct := newDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	defer closeConn(conn)
	for name, value := range sessionSettings {
		if _, err := conn.Exec(ctx, `ALTER ROLE CURRENT_USER IN DATABASE `+pgx.Identifier{conn.Config().Database}.Sanitize()+
			` SET `+name+` = `+value); err != nil {
			t.Fatal(err)
		}
	}
	return direct
}

// Behind the pooler without a listen URL the store declares no wake hints, and says so
// both ways; the node polls.
func TestPoolerWithoutListenURLHasNoHints(t *testing.T) {
	adminPool(t)
	bouncer := pgtest.StartBouncer(t, testURL())
	s := openStore(t, bouncer.URL(t, newPooledDatabase(t)), Options{Migrate: true})
	if s.Capabilities().WakeHints {
		t.Fatal("WakeHints declared without a listen URL behind a transaction pooler")
	}
	ctx := context.Background()
	if err := s.PublishHint(ctx, time.Now()); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("PublishHint: %v, want ErrUnsupported", err)
	}
	if _, err := s.SubscribeHints(ctx); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("SubscribeHints: %v, want ErrUnsupported", err)
	}
}

// Without the session settings on the server, a pooled store refuses to open and gives
// the statements that set them; their plans are not right without them.
func TestPoolerRefusesWithoutServerSettings(t *testing.T) {
	adminPool(t)
	bouncer := pgtest.StartBouncer(t, testURL())
	pooled := bouncer.URL(t, newDatabase(t))
	if err := Migrate(context.Background(), pooled); err != nil {
		t.Fatalf("Migrate through the pooler: %v", err)
	}
	_, err := Open(context.Background(), pooled, Options{})
	if err == nil || !strings.Contains(err.Error(), "ALTER ROLE CURRENT_USER IN DATABASE") {
		t.Fatalf("Open: %v, want a refusal naming the settings", err)
	}
}

// A listen URL through the pooler is refused: a LISTEN there would be lost silently.
func TestPoolerRefusesAPooledListenURL(t *testing.T) {
	pooled := "postgres://root@127.0.0.1:6432/chronos?pooler=transaction"
	if _, err := Open(context.Background(), pooled, Options{ListenURL: pooled}); err == nil || !strings.Contains(err.Error(), "LISTEN") {
		t.Fatalf("Open: %v, want a refusal of the pooled listen URL", err)
	}
}

// The pooler parameter leaves the rest of the URL to pgx as it was, multi-host and
// escaped password included, and picks the describe-caching exec mode unless the URL
// names one.
func TestPoolerParameter(t *testing.T) {
	for _, c := range []struct {
		url, direct     string
		pooled, modeSet bool
	}{
		{"postgres://h/db", "postgres://h/db", false, false},
		{"postgres://u:p%26w@h1:5432,h2:5433/db?pooler=transaction&target_session_attrs=read-write",
			"postgres://u:p%26w@h1:5432,h2:5433/db?target_session_attrs=read-write", true, false},
		{"postgres://h/db?default_query_exec_mode=exec&pooler=transaction", "postgres://h/db?default_query_exec_mode=exec", true, true},
	} {
		direct, pooled, modeSet, err := takePoolerParam(c.url)
		if err != nil || direct != c.direct || pooled != c.pooled || modeSet != c.modeSet {
			t.Errorf("takePoolerParam(%q) = %q, %v, %v, %v; want %q, %v, %v", c.url, direct, pooled, modeSet, err, c.direct, c.pooled, c.modeSet)
		}
	}
	if _, _, _, err := takePoolerParam("postgres://h/db?pooler=session"); err == nil {
		t.Error("pooler=session accepted")
	}
	cfg, err := parseURL("postgres://h/db?pooler=transaction")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ConnConfig.DefaultQueryExecMode != pgx.QueryExecModeCacheDescribe {
		t.Errorf("exec mode %v, want cache_describe", cfg.ConnConfig.DefaultQueryExecMode)
	}
	for name := range sessionSettings {
		if _, sent := cfg.ConnConfig.RuntimeParams[name]; sent {
			t.Errorf("%s is sent as a startup parameter through the pooler", name)
		}
	}
}

// A listen URL on another database than the store's is refused when the listener
// starts: it would never hear a hint.
func TestListenURLOnAnotherDatabaseIsRefused(t *testing.T) {
	s := openStore(t, newDatabase(t), Options{Migrate: true, ListenURL: newDatabase(t)})
	if _, err := s.SubscribeHints(context.Background()); err == nil || !strings.Contains(err.Error(), "listen URL reaches database") {
		t.Fatalf("SubscribeHints: %v, want a refusal naming both databases", err)
	}
}
