package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Node is one `chronos serve` process that can be killed and restarted on the same
// address and store.
type Node struct {
	t      *testing.T
	Name   string
	Addr   string // host:port of its HTTP API
	bin    string
	args   []string
	env    []string
	logDir string

	mu    sync.Mutex
	cmd   *exec.Cmd
	done  chan struct{}
	runs  int
	kills []Kill
}

// Kill records one SIGKILL: which node, which process, when.
type Kill struct {
	Node string
	PID  int
	At   time.Time
}

// receiverRange is where the tests' receivers listen (httptest, 127.0.0.1): a node whose
// endpoints point at them is given it with --endpoint-allow-cidr, as an operator whose
// receivers are internal would.
const receiverRange = "127.0.0.0/8"

// NodeConfig is what a node is started with; Extra flags are appended.
type NodeConfig struct {
	Binary  string // the chronos executable; "" for the one built for this run
	Store   string
	WakeURL string
	Secret  string
	Extra   []string
	Env     []string
}

// StartNode starts a node and waits until its API answers /healthz.
func StartNode(t *testing.T, name string, c NodeConfig) *Node {
	t.Helper()
	n := &Node{t: t, Name: name, Addr: freeAddr(t), bin: c.Binary, logDir: t.TempDir(), env: c.Env}
	if n.bin == "" {
		n.bin = binary
	}
	n.args = append([]string{"serve",
		"--store", c.Store,
		"--listen", n.Addr,
		"--wake-url", c.WakeURL,
		"--wake-secret", c.Secret,
		"--log-format", "json",
	}, c.Extra...)
	n.Start()
	t.Cleanup(func() {
		n.Kill()
		if t.Failed() {
			n.dumpLogs()
		}
	})
	return n
}

// Start (re)starts the process and waits for /healthz.
func (n *Node) Start() {
	n.t.Helper()
	n.mu.Lock()
	n.runs++
	logPath := filepath.Join(n.logDir, fmt.Sprintf("%s-%d.log", n.Name, n.runs))
	f, err := os.Create(logPath)
	if err != nil {
		n.mu.Unlock()
		n.t.Fatal(err)
	}
	cmd := exec.Command(n.bin, n.args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), n.env...)
	if err := cmd.Start(); err != nil {
		n.mu.Unlock()
		n.t.Fatalf("starting %s: %v", n.Name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); f.Close(); close(done) }()
	n.cmd, n.done = cmd, done
	n.mu.Unlock()

	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-done:
			n.dumpLogs()
			n.t.Fatalf("%s exited during start-up", n.Name)
		default:
		}
		if resp, err := http.Get("http://" + n.Addr + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			n.dumpLogs()
			n.t.Fatalf("%s did not become healthy within 20s", n.Name)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// Kill sends SIGKILL and waits for the process to be gone. Killing a stopped node is a no-op.
func (n *Node) Kill() { n.signal(syscall.SIGKILL) }

// Stop sends SIGTERM (graceful drain) and waits.
func (n *Node) Stop() { n.signal(syscall.SIGTERM) }

// PID is the process id of the current (or last) run; 0 before the first start.
func (n *Node) PID() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil || n.cmd.Process == nil {
		return 0
	}
	return n.cmd.Process.Pid
}

// Running reports whether the current run is still alive (it did not exit on its own).
func (n *Node) Running() bool {
	n.mu.Lock()
	done := n.done
	n.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// Kills returns every SIGKILL sent to this node while it was running.
func (n *Node) Kills() []Kill {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Kill(nil), n.kills...)
}

// Restarts is how many times the node was started after its first start.
func (n *Node) Restarts() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return max(n.runs-1, 0)
}

func (n *Node) signal(sig syscall.Signal) {
	n.mu.Lock()
	cmd, done := n.cmd, n.done
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	if sig == syscall.SIGKILL {
		n.mu.Lock()
		n.kills = append(n.kills, Kill{Node: n.Name, PID: cmd.Process.Pid, At: time.Now()})
		n.mu.Unlock()
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// Logs returns everything the node printed in all its runs.
func (n *Node) Logs() string {
	var b bytes.Buffer
	for i := 1; i <= n.runs; i++ {
		data, _ := os.ReadFile(filepath.Join(n.logDir, fmt.Sprintf("%s-%d.log", n.Name, i)))
		fmt.Fprintf(&b, "--- %s run %d ---\n%s", n.Name, i, data)
	}
	return b.String()
}

// dumpLogs keeps a failed test's node logs in a file and says where, with the node's
// last warning or error: one line per node, so the test's own errors stay the last
// thing a failed run prints (CI shows the end of the output only).
func (n *Node) dumpLogs() {
	logs := n.Logs()
	dir := os.Getenv("CHRONOS_E2E_LOG_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "chronos-e2e-logs")
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(n.t.Name()) + "-" + n.Name + ".log"
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		path = err.Error()
	} else if err := os.WriteFile(path, []byte(logs), 0o644); err != nil {
		path = err.Error()
	}
	lines := strings.Split(strings.TrimRight(logs, "\n"), "\n")
	var complaints int
	last := "none"
	for _, line := range lines {
		if strings.Contains(line, `"level":"warn"`) || strings.Contains(line, `"level":"error"`) {
			complaints++
			last = line
		}
	}
	if len(last) > 400 {
		last = last[:400] + "..."
	}
	n.t.Logf("node %s: %d log lines, %d warnings and errors, kept in %s; the last: %s", n.Name, len(lines), complaints, path, last)
}

// freeAddr returns a loopback address with a port free right now.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// CreateToken runs `chronos token create` against store, with the extra flags (such as
// --admin), and returns the token.
func CreateToken(t *testing.T, store, owner string, extra ...string) string {
	t.Helper()
	return CreateTokenWith(t, binary, store, owner, extra...)
}

// CreateTokenWith is CreateToken with another chronos executable (an earlier release).
func CreateTokenWith(t *testing.T, bin, store, owner string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if strings.HasPrefix(store, "sqlite://") {
		// token create refuses a SQLite file that does not exist yet (only serve and
		// migrate create a store); the tests make tokens before the first node starts.
		if out, err := exec.CommandContext(ctx, bin, "migrate", "--store", store).CombinedOutput(); err != nil {
			t.Fatalf("migrate: %v\n%s", err, out)
		}
	}
	args := append([]string{"token", "create", "--owner", owner, "--store", store}, extra...)
	out, err := exec.CommandContext(ctx, bin, args...).Output()
	if err != nil {
		t.Fatalf("token create: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Freeze stops the process with SIGSTOP until Thaw: it runs nothing (no claim, no
// timer, no heartbeat) but keeps its sockets, as a node does in a long GC pause or on a
// VM that was suspended. Both return at once.
func (n *Node) Freeze() { n.send(syscall.SIGSTOP) }

// Thaw resumes a frozen process with SIGCONT.
func (n *Node) Thaw() { n.send(syscall.SIGCONT) }

func (n *Node) send(sig syscall.Signal) {
	n.mu.Lock()
	cmd := n.cmd
	n.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Signal(sig)
	}
}

// Stacks sends SIGQUIT, so that the Go runtime prints every goroutine's stack into the
// node's log and exits, and returns, one line each, the stacks of the goroutines that
// run through any of fns (function names only, innermost first): what a node that
// stopped working was waiting for, short enough for the part of a failed run CI shows.
func (n *Node) Stacks(fns ...string) []string {
	n.signal(syscall.SIGQUIT)
	var out []string
	for _, block := range strings.Split(n.Logs(), "\n\ngoroutine ") {
		lines := strings.Split(block, "\n")
		var funcs []string
		hit := false
		for _, l := range lines[1:] {
			if l == "" || strings.HasPrefix(l, "\t") {
				continue
			}
			name := l
			if i := strings.LastIndex(name, "("); i > 0 {
				name = name[:i]
			}
			name = name[strings.LastIndex(name, "/")+1:]
			if !strings.HasPrefix(name, "runtime.") {
				funcs = append(funcs, name)
			}
			for _, fn := range fns {
				if strings.Contains(l, fn) {
					hit = true
				}
			}
		}
		if hit && len(out) < 8 {
			out = append(out, "goroutine "+lines[0]+" "+strings.Join(funcs, " < "))
		}
	}
	return out
}
