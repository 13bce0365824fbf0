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
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/chronoshq/chronos/internal/testca"
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
	install := need(t, "mariadb-install-db", "/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db")
	server := need(t, "mariadbd", "/usr/sbin/mariadbd", "/usr/sbin/mysqld")

	dir, err := os.MkdirTemp("", "chronos-mariadb-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	s := &Server{Port: sparePort(t), dir: dir, socket: filepath.Join(dir, "mysqld.sock")}
	data := filepath.Join(dir, "data")
	s.CA = testca.New(t, dir, CertUser)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, install, "--no-defaults", "--datadir="+data, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve")
	if out, err := asServerUser(t, dir, cmd).CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}

	cmd = asServerUser(t, dir, exec.Command(server, "--no-defaults",
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
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting mariadbd: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	s.setUp(t, exited)
	return s
}

// setUp waits until the server answers on its socket (where TLS is not required: a
// Unix socket is a secure transport) and creates User and CertUser.
func (s *Server) setUp(t testing.TB, exited <-chan error) {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", s.socket
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
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
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", s.socket
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
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

// need returns the first of paths that is an executable, or skips (fails under
// CI=true).
func need(t testing.TB, what string, paths ...string) string {
	t.Helper()
	var err error
	for _, p := range paths {
		var bin string
		if bin, err = exec.LookPath(p); err == nil {
			return bin
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed (CI=true requires it; apt-get install mariadb-server): %v", what, err)
	}
	t.Skipf("%s is not installed, skipping (apt-get install mariadb-server): %v", what, err)
	return ""
}

// sparePort is a loopback port nothing listens on right now.
func sparePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// asServerUser makes cmd run as serverUser when the test runs as root, and everything
// under dir that user's (the server reads its key and writes its data there).
func asServerUser(t testing.TB, dir string, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		return cmd
	}
	u, err := user.Lookup(serverUser)
	if err != nil {
		t.Fatalf("mariadbd should not run as root, and there is no user %s to run it as: %v", serverUser, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	err = filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	cmd.Env = append(os.Environ(), "HOME="+dir, "LC_ALL=C")
	return cmd
}
