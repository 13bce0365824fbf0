package postgres

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/internal/pgtest"
	"github.com/chronoshq/chronos/internal/testca"
	"github.com/chronoshq/chronos/ports"
	"github.com/chronoshq/chronos/test/contract"
)

// TestTLS runs the store against a PostgreSQL of its own that accepts TLS connections
// only, with a certificate from a CA the test makes: the whole conformance suite with
// sslmode=verify-full (hints on a listen URL that verifies too), a client certificate,
// and the connections that must be refused.
func TestTLS(t *testing.T) {
	server := pgtest.NewTLSServer(t)

	t.Run("contract, verify-full", func(t *testing.T) {
		contract.Run(t, func(t *testing.T) contract.Harness { return &tlsHarness{server: server} })
	})

	t.Run("client certificate", func(t *testing.T) {
		withCert := setParams(t, server.URL("localhost", pgtest.ClientCertDatabase),
			"sslcert", server.CA.ClientCertFile, "sslkey", server.CA.ClientKeyFile)
		s := openStore(t, withCert, Options{Migrate: true})
		assertEncrypted(t, s)
		// The database requires the certificate (clientcert=verify-full).
		if err := tryOpen(server.URL("localhost", pgtest.ClientCertDatabase)); err == nil {
			t.Error("connected without a client certificate")
		}
	})

	t.Run("another CA is refused", func(t *testing.T) {
		other := testca.New(t, t.TempDir(), "root")
		err := tryOpen(setParams(t, server.URL("localhost", "postgres"), "sslrootcert", other.CertFile))
		t.Logf("another CA: %v", err)
		if err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("Open with another CA: %v, want a refused certificate", err)
		}
	})

	t.Run("plaintext is refused by the server", func(t *testing.T) {
		err := tryOpen(setParams(t, server.URL("localhost", "postgres"), "sslmode", "disable", "sslrootcert", ""))
		t.Logf("without TLS: %v", err)
		if err == nil || !strings.Contains(err.Error(), "no encryption") {
			t.Errorf("Open without TLS: %v, want the server's refusal (pg_hba: no encryption)", err)
		}
	})
}

// tlsHarness opens migrated stores on fresh databases of a TLS server, under the name
// localhost, with hints on a listen URL to the same database under 127.0.0.1 (both
// names are in the server's certificate).
type tlsHarness struct {
	server         *pgtest.TLSServer
	url, listenURL string
}

var _ contract.Reopener = (*tlsHarness)(nil)

func (h *tlsHarness) NewStore(t *testing.T, clock ports.Clock) ports.Store {
	t.Helper()
	database := strings.TrimPrefix(mustParse(t, pgtest.NewDatabase(t, h.server.URL("localhost", "postgres"))).Path, "/")
	h.url = h.server.URL("localhost", database)
	h.listenURL = h.server.URL("127.0.0.1", database)
	return openStore(t, h.url, Options{Clock: clock, Migrate: true, ListenURL: h.listenURL})
}

func (h *tlsHarness) Reopen(t *testing.T, clock ports.Clock) ports.Store {
	t.Helper()
	if h.url == "" {
		t.Fatal("Reopen before NewStore")
	}
	return openStore(t, h.url, Options{Clock: clock, ListenURL: h.listenURL})
}

// assertEncrypted checks the store's connections are TLS ones.
func assertEncrypted(t *testing.T, s *Store) {
	t.Helper()
	var ssl bool
	if err := s.pool.QueryRow(context.Background(), `SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`).Scan(&ssl); err != nil {
		t.Fatal(err)
	}
	if !ssl {
		t.Error("the connection is not encrypted")
	}
}

// tryOpen is Open's error; a store it opens is closed.
func tryOpen(storeURL string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s, err := Open(ctx, storeURL, Options{})
	if err == nil {
		_ = s.Close()
	}
	return err
}

// setParams is storeURL with query parameters set, in name, value pairs ("" removes one).
func setParams(t *testing.T, storeURL string, pairs ...string) string {
	t.Helper()
	u := mustParse(t, storeURL)
	q := u.Query()
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			q.Del(pairs[i])
		} else {
			q.Set(pairs[i], pairs[i+1])
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
