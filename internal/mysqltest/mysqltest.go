// Package mysqltest runs, for a test, a throwaway MariaDB server that accepts encrypted
// connections only (require_secure_transport), with certificates from a CA the test
// makes: the machine's own server is never reconfigured.
//
// mariadbd is started as the user mysql when the test runs as root, from a temporary
// directory that user owns. Without the server's executables a test is skipped, and
// fails under CI=true.
package mysqltest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/chronoshq/chronos/internal/testca"
	"github.com/chronoshq/chronos/internal/testdaemon"
)

// serverUser is the user mariadbd runs as when the test runs as root.
const serverUser = "mysql"

// Users the server has, besides root: User connects with TLS and no client
// certificate; CertUser must also present a client certificate signed by the CA
// (REQUIRE X509). Neither has a password; both may do anything.
const (
	User     = "chronos"
	CertUser = "chronos_x509"
)

// Server is one running mariadbd.
type Server struct {
	// Port is its TCP port on 127.0.0.1.
	Port int
	// CA signed its certificate (for localhost and 127.0.0.1) and the client
	// certificate CertUser presents.
	CA     *testca.CA
	dir    string
	socket string
}

// Start initialises a data directory and starts mariadbd on it, on a spare loopback
// port, TLS required, and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	install := testdaemon.Need(t, "mariadb-install-db", "mariadb-server", "mariadb-install-db", "/usr/bin/mysql_install_db")
	server := testdaemon.Need(t, "mariadbd", "mariadb-server", "/usr/sbin/mariadbd", "/usr/sbin/mysqld")

	dir := testdaemon.Dir(t, "chronos-mariadb-")
	s := &Server{Port: testdaemon.SparePort(t), dir: dir, socket: filepath.Join(dir, "mysqld.sock")}
	data := filepath.Join(dir, "data")
	s.CA = testca.New(t, dir, CertUser)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, install, "--no-defaults", "--datadir="+data, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve")
	if out, err := testdaemon.AsUser(t, serverUser, dir, cmd).CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}

	cmd = testdaemon.AsUser(t, serverUser, dir, exec.Command(server, "--no-defaults",
		"--datadir="+data,
		"--port="+strconv.Itoa(s.Port),
		"--bind-address=127.0.0.1",
		"--socket="+s.socket,
		"--pid-file="+filepath.Join(dir, "mysqld.pid"),
		"--log-error="+filepath.Join(dir, "error.log"),
		"--tmpdir="+dir,
		"--skip-name-resolve",
		"--skip-log-bin",
		"--innodb-buffer-pool-size=32M",
		"--innodb-log-file-size=16M",
		// A throwaway server: nothing it writes needs to survive a crash.
		"--innodb-flush-log-at-trx-commit=2",
		"--innodb-doublewrite=0",
		"--max-connections=100",
		"--ssl-ca="+s.CA.CertFile,
		"--ssl-cert="+s.CA.ServerCertFile,
		"--ssl-key="+s.CA.ServerKeyFile,
		"--require-secure-transport=ON",
	))
	s.setUp(t, testdaemon.Start(t, cmd, 20*time.Second))
	return s
}

// setUp waits until the server answers on its socket (where TLS is not required: a
// Unix socket is a secure transport) and creates User and CertUser.
func (s *Server) setUp(t testing.TB, exited <-chan error) {
	t.Helper()
	db := s.rootDB(t)
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("mariadbd exited at start (%v):\n%s", err, s.Log())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := db.PingContext(ctx)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mariadbd did not answer within 30 s (%v):\n%s", err, s.Log())
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, statement := range []string{
		"CREATE USER " + User + "@'%' IDENTIFIED BY ''",
		"GRANT ALL ON *.* TO " + User + "@'%' WITH GRANT OPTION",
		"CREATE USER " + CertUser + "@'%' IDENTIFIED BY '' REQUIRE X509",
		"GRANT ALL ON *.* TO " + CertUser + "@'%'",
	} {
		if _, err := db.Exec(statement); err != nil {
			t.Fatalf("%s: %v", statement, err)
		}
	}
}

// URL is a store URL for database on the server as User over TCP, with params (such
// as the TLS ones) as its query; the database is not created.
func (s *Server) URL(host, database string, params url.Values) string {
	return s.urlAs(User, host, database, params)
}

// CertUserURL is URL as CertUser.
func (s *Server) CertUserURL(host, database string, params url.Values) string {
	return s.urlAs(CertUser, host, database, params)
}

func (s *Server) urlAs(user, host, database string, params url.Values) string {
	u := url.URL{Scheme: "mysql", User: url.User(user), Host: net.JoinHostPort(host, strconv.Itoa(s.Port)),
		Path: "/" + database, RawQuery: params.Encode()}
	return u.String()
}

// NewDatabase creates a database with a unique name (over the server's socket) and
// returns its name; the server and the database go when t ends.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	db := s.rootDB(t)
	defer db.Close()
	name := fmt.Sprintf("chronos_tls_%d", time.Now().UnixNano())
	if _, err := db.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		t.Fatalf("create database: %v", err)
	}
	return name
}

// Log is the server's error log so far, for a failure message.
func (s *Server) Log() string {
	text, err := os.ReadFile(filepath.Join(s.dir, "error.log"))
	if err != nil {
		return "(no mariadbd log: " + err.Error() + ")"
	}
	return strings.TrimSpace(string(text))
}

// rootDB is a pool on the server's socket as root.
func (s *Server) rootDB(t testing.TB) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", s.socket
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sql.OpenDB(connector)
}
