package pgtest

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/chronoshq/chronos/internal/testca"
	"github.com/chronoshq/chronos/internal/testdaemon"
)

// ClientCertDatabase is the database on a TLSServer that also requires a client
// certificate signed by the server's CA (pg_hba's clientcert=verify-full).
const ClientCertDatabase = "chronos_clientcert"

// TLSServer is one PostgreSQL server, initdb'd into a temporary directory on a spare
// loopback port, that accepts TLS connections only (hostssl lines alone in pg_hba), with
// a server certificate for localhost and 127.0.0.1 signed by CA.
type TLSServer struct {
	*Instance
	CA *testca.CA
	c  *Cluster
}

// NewTLSServer starts a TLSServer, with ClientCertDatabase created on it, and stops it
// when t ends. Its superuser is root (trust authentication once the connection is
// encrypted), as on the test server.
func NewTLSServer(t testing.TB) *TLSServer {
	t.Helper()
	for _, tool := range []string{"initdb", "pg_ctl", "postgres", "psql"} {
		testdaemon.Need(t, tool, "postgresql-15", filepath.Join(binDir, tool))
	}
	c := &Cluster{dir: testdaemon.Dir(t, "chronos-pgtls-"), t: t}
	s := &TLSServer{Instance: &Instance{Name: "tls", Port: testdaemon.SparePort(t), data: filepath.Join(c.dir, "data")}, c: c}
	c.Primary = s.Instance
	t.Cleanup(func() {
		if _, err := os.Stat(filepath.Join(s.data, "postmaster.pid")); err == nil {
			_ = c.run("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "stop")
		}
	})
	c.mustRun("initdb", "-D", s.data, "-U", "root", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	certs := filepath.Join(c.dir, "certs")
	if err := os.Mkdir(certs, 0o755); err != nil {
		t.Fatal(err)
	}
	s.CA = testca.New(t, certs, "root")
	c.appendConf(s.Instance, "postgresql.conf", fmt.Sprintf(`
port = %d
listen_addresses = '127.0.0.1'
unix_socket_directories = '%s'
max_connections = 60
shared_buffers = 32MB
ssl = on
ssl_cert_file = '%s'
ssl_key_file = '%s'
ssl_ca_file = '%s'
`, s.Port, c.dir, s.CA.ServerCertFile, s.CA.ServerKeyFile, s.CA.CertFile))
	// Only hostssl lines over TCP: a connection without TLS matches none and is refused.
	// The local line is for psql below, over the socket.
	hba := fmt.Sprintf(`local all all trust
hostssl %s all 127.0.0.1/32 trust clientcert=verify-full
hostssl all all 127.0.0.1/32 trust
`, ClientCertDatabase)
	if err := os.WriteFile(filepath.Join(s.data, "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		t.Fatal(err)
	}
	c.start(s.Instance)
	c.mustRun("psql", "-h", c.dir, "-p", fmt.Sprint(s.Port), "-U", "root", "-d", "postgres", "-v", "ON_ERROR_STOP=1",
		"-c", "CREATE DATABASE "+ClientCertDatabase)
	return s
}

// URL is the URL of database on the server with sslmode=verify-full and the CA's
// certificate as sslrootcert, under host (localhost or 127.0.0.1: both are in the
// server certificate).
func (s *TLSServer) URL(host, database string) string {
	q := url.Values{"sslmode": {"verify-full"}, "sslrootcert": {s.CA.CertFile}}
	return fmt.Sprintf("postgres://root@%s:%d/%s?%s", host, s.Port, database, q.Encode())
}

// Log is the server's log so far, for a failure message.
func (s *TLSServer) Log() string { return s.c.Log(s.Instance) }
