package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// serveNode is one `chronos serve` process, started as a user starts it: the binary
// running the bench, the store, a listen address, the wake URL and secret, and nothing
// else unless the run asks for it. It reads no CHRONOS_* environment either, so a
// figure depends only on the command line quoted beside it.
type serveNode struct {
	addr string // host:port of its API
	log  string // its stdout and stderr
	cmd  *exec.Cmd
	done chan struct{}
}

// startServeNode starts node i and waits until /healthz answers.
func startServeNode(ctx context.Context, i int, dir string, args []string) (*serveNode, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("bench: the chronos binary: %w", err)
	}
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	n := &serveNode{addr: addr, log: filepath.Join(dir, fmt.Sprintf("serve-%d.log", i)), done: make(chan struct{})}
	f, err := os.Create(n.log)
	if err != nil {
		return nil, err
	}
	n.cmd = exec.Command(bin, append([]string{"serve", "--listen", addr, "--log-format", "json"}, args...)...)
	n.cmd.Stdout, n.cmd.Stderr = f, f
	n.cmd.Env = withoutChronosEnv(os.Environ())
	if err := n.cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: starting serve node %d: %w", i, err)
	}
	go func() { _ = n.cmd.Wait(); f.Close(); close(n.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-n.done:
			return nil, fmt.Errorf("bench: serve node %d exited during start-up (log: %s)", i, n.log)
		case <-ctx.Done():
			n.stop()
			return nil, ctx.Err()
		default:
		}
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return n, nil
			}
		}
		if time.Now().After(deadline) {
			n.stop()
			return nil, fmt.Errorf("bench: serve node %d not healthy within 30s (log: %s)", i, n.log)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// stop ends the process as an operator does (SIGTERM, then SIGKILL after 15 s).
func (n *serveNode) stop() {
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.done:
	case <-time.After(15 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.done
	}
}

// runChronos runs the bench's own binary with args (migrate, token create) and returns
// its standard output.
func runChronos(ctx context.Context, args ...string) (string, error) {
	bin, err := os.Executable()
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = withoutChronosEnv(os.Environ())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("bench: chronos %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// newOwnerToken makes a token for owner on store (`chronos token create`).
func newOwnerToken(ctx context.Context, store, owner string, extra ...string) (string, error) {
	out, err := runChronos(ctx, append([]string{"token", "create", "--owner", owner, "--store", store}, extra...)...)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	token := strings.TrimSpace(lines[len(lines)-1])
	if token == "" {
		return "", errors.New("bench: token create printed no token")
	}
	return token, nil
}

func withoutChronosEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "CHRONOS_") {
			out = append(out, kv)
		}
	}
	return out
}

func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("bench: a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
