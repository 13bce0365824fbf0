package pgtest

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Bouncer is one running PgBouncer.
type Bouncer struct {
	// Addr is the host:port clients connect to.
	Addr string
	dir  string
}

// StartBouncer runs a PgBouncer in transaction mode in front of the server serverURL names
// (its host, port and user; every database on the server is reachable through it, by
// its own name) and stops it when t ends.
func StartBouncer(t testing.TB, serverURL string) *Bouncer {
	t.Helper()
	bin := need(t, "pgbouncer", "pgbouncer", "/usr/sbin/pgbouncer")
	server, err := url.Parse(serverURL)
	if err != nil {
		t.Fatalf("server URL: %v", err)
	}
	serverPort := server.Port()
	if serverPort == "" {
		serverPort = "5432"
	}
	port := sparePort(t)
	b := &Bouncer{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}

	b.dir = serverDir(t, "chronos-pgbouncer-")
	files := map[string]string{
		"pgbouncer.ini": fmt.Sprintf(config, server.Hostname(), serverPort, port, b.dir),
		"userlist.txt":  fmt.Sprintf("%q \"\"\n", server.User.Username()),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(b.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	cmd := asServerUser(t, b.dir, exec.Command(bin, filepath.Join(b.dir, "pgbouncer.ini")))
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting pgbouncer: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM) // immediate shutdown, closing every connection
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	b.waitListening(t, exited)
	return b
}

// config is PgBouncer's configuration: the server's host and port, the port to listen
// on, the directory of its files. Pools are kept small, since every test's database
// gets pools of its own and the server's connections are shared with everything else
// on the machine; server sessions idle for a few seconds are closed so a dropped test
// database leaves none behind.
const config = `[databases]
* = host=%s port=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %[3]d
unix_socket_dir =
auth_type = trust
auth_file = %[4]s/userlist.txt
logfile = %[4]s/pgbouncer.log
pool_mode = transaction
default_pool_size = 4
max_db_connections = 6
max_client_conn = 400
server_idle_timeout = 5
server_lifetime = 60
ignore_startup_parameters = extra_float_digits
`

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

// waitListening waits until PgBouncer accepts connections.
func (b *Bouncer) waitListening(t testing.TB, exited <-chan error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("pgbouncer exited at start (%v):\n%s", err, b.Log())
		default:
		}
		if c, err := net.DialTimeout("tcp", b.Addr, time.Second); err == nil {
			_ = c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pgbouncer did not listen on %s within 10s:\n%s", b.Addr, b.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// URL is directURL (a URL of a database on the server Start was given) through the
// bouncer: its host and port replaced by the bouncer's, with pooler=transaction added.
func (b *Bouncer) URL(t testing.TB, directURL string) string {
	t.Helper()
	u, err := url.Parse(directURL)
	if err != nil {
		t.Fatalf("database URL: %v", err)
	}
	u.Host = b.Addr
	q := u.Query()
	q.Set("pooler", "transaction")
	u.RawQuery = q.Encode()
	return u.String()
}

// Log is PgBouncer's log so far, for a failure message.
func (b *Bouncer) Log() string {
	text, err := os.ReadFile(filepath.Join(b.dir, "pgbouncer.log"))
	if err != nil {
		return "(no pgbouncer log: " + err.Error() + ")"
	}
	return strings.TrimSpace(string(text))
}
