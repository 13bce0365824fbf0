package postgres

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/internal/pgtest"
	"github.com/chronoshq/chronos/internal/testca"
)

// TestTLS runs the store against a PostgreSQL of its own that accepts TLS connections
// only, with a certificate from a CA the test makes: the whole conformance suite with
// sslmode=verify-full (hints on a listen URL that verifies too), a client certificate,
// and the connections that must be refused.
func TestTLS(t *testing.T) {
	server := pgtest.NewTLSServer(t)

	t.Run("contract, verify-full", func(t *testing.T) {
		storetest.Contract(t, func(t *testing.T) direct { return tlsDatabase(t, server) }, openDirect)
	})

	t.Run("client certificate", func(t *testing.T) {
		withCert := storetest.WithQuery(t, server.URL("localhost", pgtest.ClientCertDatabase),
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
		err := tryOpen(storetest.WithQuery(t, server.URL("localhost", "postgres"), "sslrootcert", other.CertFile))
		t.Logf("another CA: %v", err)
		if err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("Open with another CA: %v, want a refused certificate", err)
		}
	})

	t.Run("plaintext is refused by the server", func(t *testing.T) {
		err := tryOpen(storetest.WithQuery(t, server.URL("localhost", "postgres"), "sslmode", "disable", "sslrootcert", ""))
		t.Logf("without TLS: %v", err)
		if err == nil || !strings.Contains(err.Error(), "no encryption") {
			t.Errorf("Open without TLS: %v, want the server's refusal (pg_hba: no encryption)", err)
		}
	})
}

// tlsDatabase is a new database of the TLS server, under the name localhost, with
// hints on a listen URL to the same database under 127.0.0.1 (both names are in the
// server's certificate).
func tlsDatabase(t *testing.T, server *pgtest.TLSServer) direct {
	t.Helper()
	u, err := url.Parse(pgtest.NewDatabase(t, server.URL("localhost", "postgres")))
	if err != nil {
		t.Fatal(err)
	}
	database := strings.TrimPrefix(u.Path, "/")
	return direct{url: server.URL("localhost", database), listenURL: server.URL("127.0.0.1", database)}
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
