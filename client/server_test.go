package client_test

import (
	"net/http/httptest"
	"testing"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/testserver"
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
	server *testserver.Server
}

// fail makes the due alarm id fail one delivery, as a dispatcher would.
func (s realServer) fail(t *testing.T, id string) { s.server.Fail(t, id) }

func newRealServer(t *testing.T) realServer {
	t.Helper()
	return newRealServerWith(t, testserver.Options{})
}

// newRealServerWith is newRealServer with the server's options.
func newRealServerWith(t *testing.T, opts testserver.Options) realServer {
	t.Helper()
	opts.RetentionHolder = "client-test"
	s := testserver.New(t, opts)
	store, tokens, ctx := s.Store, s.Tokens, t.Context()
	srv := httptest.NewServer(s.Handler)
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
		ops: as("ops", domain.ScopeAdmin), reader: as("ops", domain.ScopeAdminRead), server: s}
}
