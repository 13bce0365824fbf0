//go:build e2e

package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// restartOptIn must be "1" for a test to stop and start the shared database server:
// that breaks every other connection to it, so only `make test-e2e`, which runs this
// package alone and these tests one at a time, sets it.
const restartOptIn = "CHRONOS_E2E_RESTART_DB"

// DBServer stops and starts the local database server a store URL points at.
type DBServer struct {
	Name  string
	stop  []string
	start []string
	addr  string                          // host:port
	ping  func(ctx context.Context) error // a real query: the server accepts work
	// stopped reports whether the server process is gone (nil: the port is enough).
	stopped func() bool
}

// RestartableServer returns the server behind kind's test URL, or skips the test
// saying exactly why it cannot restart it. It never skips silently.
func RestartableServer(t *testing.T, kind storeKind) *DBServer {
	t.Helper()
	if os.Getenv(restartOptIn) != "1" {
		t.Skipf("SKIP: restarting the shared %s server breaks every other test using it; set %s=1 to run this (make test-e2e does)", kind, restartOptIn)
	}
	if os.Geteuid() != 0 {
		t.Skipf("SKIP: restarting the %s server needs root; this test runs as uid %d", kind, os.Geteuid())
	}
	var raw string
	switch kind {
	case onPostgres:
		raw = envOr("CHRONOS_TEST_POSTGRES_URL", "postgres://root@127.0.0.1:5432/postgres")
	case onMySQL:
		raw = envOr("CHRONOS_TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/test")
	default:
		t.Fatalf("no database server behind %s", kind)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		t.Skipf("SKIP: the %s test server %s is not on this machine, so this test cannot restart it", kind, u.Host)
	}
	need := func(cmds ...string) {
		for _, c := range cmds {
			if _, err := exec.LookPath(c); err != nil {
				t.Skipf("SKIP: restarting the %s server needs %s, which is not installed: %v", kind, c, err)
			}
		}
	}
	switch kind {
	case onPostgres:
		need("pg_ctlcluster")
		versions, _ := filepath.Glob("/etc/postgresql/*/main")
		if len(versions) != 1 {
			t.Skipf("SKIP: restarting PostgreSQL needs exactly one cluster named main under /etc/postgresql, found %v", versions)
		}
		version := filepath.Base(filepath.Dir(versions[0]))
		port := u.Port()
		if port == "" {
			port = "5432"
		}
		return &DBServer{
			Name:  "PostgreSQL " + version,
			stop:  []string{"pg_ctlcluster", "--skip-systemctl-redirect", "-m", "fast", version, "main", "stop"},
			start: []string{"pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "start"},
			addr:  net.JoinHostPort(u.Hostname(), port),
			ping: func(ctx context.Context) error {
				conn, err := pgx.Connect(ctx, raw)
				if err != nil {
					return err
				}
				defer conn.Close(context.Background())
				return conn.Ping(ctx)
			},
		}
	default:
		const daemon = "/usr/sbin/mariadbd"
		need("mysqladmin", "start-stop-daemon", daemon)
		port := u.Port()
		if port == "" {
			port = "3306"
		}
		user := u.User.Username()
		pass, _ := u.User.Password()
		stop := []string{"mysqladmin", "--protocol=tcp", "-h", u.Hostname(), "-P", port, "-u", user}
		if pass != "" {
			stop = append(stop, "-p"+pass)
		}
		return &DBServer{
			Name:  "MariaDB",
			stop:  append(stop, "shutdown"),
			start: []string{"start-stop-daemon", "--start", "--oknodo", "--background", "--exec", daemon},
			addr:  net.JoinHostPort(u.Hostname(), port),
			ping: func(ctx context.Context) error {
				cfg, err := mysqlAdminConfig(raw)
				if err != nil {
					return err
				}
				connector, err := mysql.NewConnector(cfg)
				if err != nil {
					return err
				}
				db := sql.OpenDB(connector)
				defer db.Close()
				return db.PingContext(ctx)
			},
			stopped: func() bool {
				return exec.Command("start-stop-daemon", "--status", "--exec", daemon).Run() != nil
			},
		}
	}
}

// Outage stops the server, keeps it down for down, starts it and waits until it
// accepts connections; it returns when the outage began and ended. The server is
// started again when the test ends, whatever happened.
func (s *DBServer) Outage(t *testing.T, down time.Duration) Window {
	t.Helper()
	t.Cleanup(func() { s.ensureUp(t) })
	w := Window{From: time.Now()}
	if err := s.run(s.stop); err != nil {
		t.Fatalf("stopping %s: %v", s.Name, err)
	}
	if err := s.waitDown(time.Minute); err != nil {
		t.Fatalf("stopping %s: %v", s.Name, err)
	}
	t.Logf("%s stopped after %s", s.Name, time.Since(w.From).Round(time.Millisecond))
	time.Sleep(down)
	if err := s.run(s.start); err != nil {
		t.Fatalf("starting %s: %v", s.Name, err)
	}
	if err := s.waitUp(time.Minute); err != nil {
		t.Fatalf("starting %s: %v", s.Name, err)
	}
	w.To = time.Now()
	t.Logf("%s accepting connections again; it was unavailable for %s", s.Name, w.To.Sub(w.From).Round(time.Millisecond))
	return w
}

// ensureUp starts the server if it does not accept connections: other tests and
// developers share it.
func (s *DBServer) ensureUp(t *testing.T) {
	if s.accepting() {
		return
	}
	t.Logf("%s is down at the end of the test; starting it", s.Name)
	if err := s.run(s.start); err != nil {
		t.Errorf("starting %s again: %v", s.Name, err)
	}
	if err := s.waitUp(time.Minute); err != nil {
		t.Errorf("%s is still down: %v", s.Name, err)
	}
}

func (s *DBServer) run(argv []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, out)
	}
	return nil
}

func (s *DBServer) accepting() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return s.ping(ctx) == nil
}

func (s *DBServer) waitDown(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for s.accepting() || (s.stopped != nil && !s.stopped()) {
		if time.Now().After(deadline) {
			return fmt.Errorf("still running %s after the stop command", timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

func (s *DBServer) waitUp(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for !s.accepting() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not answering on %s %s after the start command", s.addr, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}
