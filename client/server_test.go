package client_test

import (
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/httpapi"
	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
)

// realServer is the real /v1 API (httpapi over app over SQLite in a temporary
// directory), as test/api builds it, with a client for each of two owners.
type realServer struct {
	srv    *httptest.Server
	store  *sqlite.Store
	alice  *client.Client
	bob    *client.Client
	ops    *client.Client // scope admin
	reader *client.Client // scope admin:read
}

func newRealServer(t *testing.T) realServer {
	t.Helper()
	ctx := t.Context()
	store, err := sqlite.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "chronos.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatalf("opening the SQLite store: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	clock := app.NewStoreClock()
	if err := clock.Sync(ctx, store); err != nil {
		t.Fatal(err)
	}
	alarms := app.NewAlarms(store, clock, nil, app.AlarmsConfig{Defaults: domain.Defaults{MaxFailures: 5}}, nil)
	tokens := app.NewTokens(store, clock)
	retention, err := app.NewRetention(store, app.RetentionConfig{Retention: time.Hour, Holder: "client-test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	admin := app.NewAdmin(store, clock, app.NewDispatchGate(store, time.Second, nil, nil), retention,
		app.AdminConfig{Lease: time.Minute, WorkerTimeout: 30 * time.Second}, nil)
	srv := httptest.NewServer(httpapi.New(alarms, tokens, store, httpapi.Options{Admin: admin}))
	t.Cleanup(srv.Close)
	as := func(owner string, scope ...domain.Scope) *client.Client {
		plain, _, err := tokens.Create(ctx, owner, append(scope, domain.ScopeOwner)[0])
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.New(srv.URL, plain, client.WithHTTPClient(srv.Client()))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	return realServer{srv: srv, store: store, alice: as("alice"), bob: as("bob"),
		ops: as("ops", domain.ScopeAdmin), reader: as("ops", domain.ScopeAdminRead)}
}
