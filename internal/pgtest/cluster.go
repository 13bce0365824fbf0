package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// binDir is where Debian's postgresql-15 puts initdb, pg_ctl and pg_basebackup (they
// are not on the PATH).
const binDir = "/usr/lib/postgresql/15/bin"

// Cluster is a primary and one streaming standby, each initdb'd into a temporary
// directory and listening on a spare loopback port, never touching the machine's own
// server. The superuser is root (trust authentication), as on the test server.
type Cluster struct {
	Primary, Standby *Instance
	dir              string
	t                testing.TB
}

// Instance is one server of a Cluster.
type Instance struct {
	Name string // "primary" or "standby"
	Port int
	data string
}

// NewCluster starts a primary and a standby streaming from it, synchronous (every
// commit waits until the standby has flushed it: synchronous_commit = on with the
// standby in synchronous_standby_names) or asynchronous, and stops both when t ends.
func NewCluster(t testing.TB, synchronous bool) *Cluster {
	t.Helper()
	for _, tool := range []string{"initdb", "pg_ctl", "pg_basebackup", "postgres"} {
		need(t, tool, "postgresql-15", filepath.Join(binDir, tool))
	}
	c := &Cluster{dir: serverDir(t, "chronos-pgcluster-"), t: t}
	c.Primary = &Instance{Name: "primary", Port: sparePort(t), data: filepath.Join(c.dir, "primary")}
	c.Standby = &Instance{Name: "standby", Port: sparePort(t), data: filepath.Join(c.dir, "standby")}
	t.Cleanup(func() {
		for _, in := range []*Instance{c.Standby, c.Primary} {
			if _, err := os.Stat(filepath.Join(in.data, "postmaster.pid")); err == nil {
				_ = c.run("pg_ctl", "-D", in.data, "-m", "immediate", "-w", "stop")
			}
		}
	})

	c.mustRun("initdb", "-D", c.Primary.data, "-U", "root", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	standbyNames := "''"
	if synchronous {
		standbyNames = "'standby'"
	}
	c.appendConf(c.Primary, "postgresql.conf", fmt.Sprintf(`
port = %d
listen_addresses = '127.0.0.1'
unix_socket_directories = '%s'
max_connections = 80
shared_buffers = 32MB
wal_level = replica
max_wal_senders = 4
wal_keep_size = 256MB
synchronous_commit = on
synchronous_standby_names = %s
`, c.Primary.Port, c.dir, standbyNames))
	c.start(c.Primary)

	c.mustRun("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(c.Primary.Port), "-U", "root",
		"-D", c.Standby.data, "-X", "stream", "-c", "fast", "-R", "--no-sync")
	// The standby's own port, its name in synchronous_standby_names, and none of the
	// primary's synchronous standbys once it is promoted: a promoted server waiting for
	// a standby it does not have would hang every commit.
	// postgresql.auto.conf, read last: pg_basebackup -R wrote its primary_conninfo there.
	c.appendConf(c.Standby, "postgresql.auto.conf", fmt.Sprintf(`
port = %d
synchronous_standby_names = ''
primary_conninfo = 'host=127.0.0.1 port=%d user=root application_name=standby'
`, c.Standby.Port, c.Primary.Port))
	c.start(c.Standby)
	c.waitStreaming(synchronous)
	return c
}

// URL is the multi-host URL of database on the cluster, primary first, that connects
// to whichever of them accepts writes.
func (c *Cluster) URL(database string) string {
	return fmt.Sprintf("postgres://root@127.0.0.1:%d,127.0.0.1:%d/%s?target_session_attrs=read-write",
		c.Primary.Port, c.Standby.Port, database)
}

// DirectURL is the URL of database on one instance.
func (in *Instance) DirectURL(database string) string {
	return fmt.Sprintf("postgres://root@127.0.0.1:%d/%s", in.Port, database)
}

// KillPrimary SIGKILLs the primary's postmaster, as a crashed machine would stop it:
// its backends exit when they notice, and nothing is flushed or shut down cleanly. It
// returns once the primary no longer accepts connections.
func (c *Cluster) KillPrimary() {
	c.t.Helper()
	raw, err := os.ReadFile(filepath.Join(c.Primary.data, "postmaster.pid"))
	if err != nil {
		c.t.Fatalf("the primary's pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(raw), "\n", 2)[0]))
	if err != nil {
		c.t.Fatalf("the primary's pid: %v", err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		c.t.Fatalf("SIGKILL the primary (pid %d): %v", pid, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for accepting(c.Primary.Port) {
		if time.Now().After(deadline) {
			c.t.Fatalf("the primary still accepts connections 10 s after SIGKILL")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Promote makes the standby the primary (pg_ctl promote) and returns once it accepts
// writes.
func (c *Cluster) Promote() {
	c.t.Helper()
	c.mustRun("pg_ctl", "-D", c.Standby.data, "-w", "-t", "30", "promote")
}

func (c *Cluster) start(in *Instance) {
	c.t.Helper()
	c.mustRun("pg_ctl", "-D", in.data, "-l", filepath.Join(c.dir, in.Name+".log"), "-w", "-t", "30", "start")
}

// waitStreaming waits until the primary sees the standby streaming (as its synchronous
// standby when synchronous).
func (c *Cluster) waitStreaming(synchronous bool) {
	c.t.Helper()
	want := "async"
	if synchronous {
		want = "sync"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.Primary.DirectURL("postgres"))
	if err != nil {
		c.t.Fatalf("connecting to the primary: %v\n%s", err, c.Log(c.Primary))
	}
	defer conn.Close(context.Background())
	for {
		var state string
		err := conn.QueryRow(ctx, `SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby' AND state = 'streaming'`).Scan(&state)
		if err == nil && state == want {
			return
		}
		if ctx.Err() != nil {
			c.t.Fatalf("the standby is not streaming (%s) after 30 s: %v (%q)\n%s", want, err, state, c.Log(c.Standby))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// appendConf adds lines to one of an instance's configuration files; later lines win.
func (c *Cluster) appendConf(in *Instance, file, lines string) {
	c.t.Helper()
	f, err := os.OpenFile(filepath.Join(in.data, file), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		c.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(lines); err != nil {
		c.t.Fatal(err)
	}
}

func (c *Cluster) mustRun(tool string, args ...string) {
	c.t.Helper()
	if err := c.run(tool, args...); err != nil {
		c.t.Fatal(err)
	}
}

// run runs one of PostgreSQL's tools as the server's user.
func (c *Cluster) run(tool string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := asServerUser(c.t, c.dir, exec.CommandContext(ctx, filepath.Join(binDir, tool), args...))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", tool, strings.Join(args, " "), err, out)
	}
	return nil
}

// Log is an instance's server log so far, for a failure message.
func (c *Cluster) Log(in *Instance) string {
	text, err := os.ReadFile(filepath.Join(c.dir, in.Name+".log"))
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	return strings.TrimSpace(string(text))
}

// accepting reports whether something accepts TCP connections on the loopback port.
func accepting(port int) bool {
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 200*time.Millisecond)
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
}
