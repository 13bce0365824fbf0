package mysql

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/internal/mysqltest"
	"github.com/chronoshq/chronos/internal/testca"
)

// TestTLS runs the store against a MariaDB of its own that requires TLS
// (require_secure_transport), with a certificate from a CA the test makes: the whole
// conformance suite with ssl-mode=VERIFY_IDENTITY, a client certificate, and the
// connections that must be refused.
func TestTLS(t *testing.T) {
	server := mysqltest.Start(t)
	verified := url.Values{"ssl-mode": {"VERIFY_IDENTITY"}, "ssl-ca": {server.CA.CertFile}}

	t.Run("contract, VERIFY_IDENTITY", func(t *testing.T) {
		storetest.Contract(t, func(t *testing.T) string { return server.URL("localhost", server.NewDatabase(t), verified) }, openOn)
	})

	t.Run("client certificate", func(t *testing.T) {
		withCert := url.Values{"ssl-mode": {"VERIFY_IDENTITY"}, "ssl-ca": {server.CA.CertFile},
			"ssl-cert": {server.CA.ClientCertFile}, "ssl-key": {server.CA.ClientKeyFile}}
		database := server.NewDatabase(t)
		openRound(t, server.CertUserURL("127.0.0.1", database, withCert))
		// The same user without its certificate is refused: REQUIRE X509.
		if err := tryOpen(t, server.CertUserURL("127.0.0.1", database, verified)); err == nil {
			t.Error("a REQUIRE X509 user connected without a client certificate")
		}
	})

	t.Run("VERIFY_CA", func(t *testing.T) {
		openRound(t, server.URL("127.0.0.1", server.NewDatabase(t), url.Values{"ssl-mode": {"VERIFY_CA"}, "ssl-ca": {server.CA.CertFile}}))
	})

	t.Run("another CA is refused", func(t *testing.T) {
		other := testca.New(t, t.TempDir(), "chronos")
		for _, mode := range []string{"VERIFY_IDENTITY", "VERIFY_CA"} {
			err := tryOpen(t, server.URL("localhost", server.NewDatabase(t), url.Values{"ssl-mode": {mode}, "ssl-ca": {other.CertFile}}))
			t.Logf("%s with another CA: %v", mode, err)
			if err == nil || !strings.Contains(err.Error(), "certificate") {
				t.Errorf("%s with another CA: %v, want a refused certificate", mode, err)
			}
		}
	})

	t.Run("plaintext is refused by the server", func(t *testing.T) {
		// MariaDB 10.11 refuses an unencrypted login under require_secure_transport as
		// it refuses a wrong password (1045, Access denied); MySQL says why (3159). The
		// same user and URL with TLS on is let in.
		database := server.NewDatabase(t)
		for _, params := range []url.Values{{}, {"ssl-mode": {"DISABLED"}}} {
			err := tryOpen(t, server.URL("127.0.0.1", database, params))
			var refusal *mysql.MySQLError
			if !errors.As(err, &refusal) || (refusal.Number != 1045 && refusal.Number != 3159) {
				t.Errorf("plaintext (%q): %v, want the server's refusal", params.Encode(), err)
			}
		}
		openRound(t, server.URL("127.0.0.1", database, url.Values{"ssl-mode": {"REQUIRED"}}))
	})
}

// openRound opens a migrated store on storeURL and runs one query on it.
func openRound(t *testing.T, storeURL string) {
	t.Helper()
	s, err := Open(t.Context(), storeURL, Options{Migrate: true})
	s = storetest.Opened(t, s, err)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var cipher string
	if err := s.db.QueryRowContext(ctx, "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'Ssl_cipher'").Scan(&cipher); err != nil {
		t.Fatal(err)
	}
	if cipher == "" {
		t.Error("the connection is not encrypted (no Ssl_cipher)")
	}
}

// tryOpen is Open's error; a store it opens is closed.
func tryOpen(t *testing.T, storeURL string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	s, err := Open(ctx, storeURL, Options{Migrate: true})
	if err == nil {
		_ = s.Close()
	}
	return err
}
