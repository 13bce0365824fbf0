package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"
)

// `chronos bench --nodes K` runs each node as a process of its own, the way K `chronos
// serve` nodes would run: the bench re-executes its own binary with the hidden
// subcommand below. Parent and worker talk in JSON lines: the worker prints
// {"ready":true} once its store is open, starts on "go <lag floor>", prints its progress every
// 50ms, and on "stop" (or when its stdin closes: the parent died) drains, writes the
// occurrence keys it delivered to --keys, and prints its report.
const WorkerCommand = "bench-worker"

type workerMessage struct {
	Ready    bool          `json:"ready,omitempty"`
	Progress *nodeProgress `json:"progress,omitempty"`
	Report   *nodeReport   `json:"report,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// WorkerConfig is what the parent passes a worker process on its command line (the
// secret goes through the environment instead). Only the bench writes these arguments
// and only RunWorker reads them, so its fields are the bench's own.
type WorkerConfig struct {
	node       nodeConfig
	keys       string
	cpuprofile string
}

// RegisterFlags defines the worker's options on fs: the arguments startProcessNode
// passes.
func (c *WorkerConfig) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.node.Store, "store", "", "store URL")
	fs.StringVar(&c.node.Waker, "waker", "noop", "noop or webhook")
	fs.StringVar(&c.node.WakeURL, "wake-url", "", "receiver URL (webhook)")
	fs.IntVar(&c.node.Batch, "batch", 0, "dispatcher batch")
	fs.IntVar(&c.node.Concurrency, "concurrency", 0, "dispatcher concurrency")
	fs.DurationVar(&c.node.Tick, "tick", time.Second, "dispatcher tick")
	fs.DurationVar(&c.node.Retention, "retention", 0, "retention (0: off)")
	fs.IntVar(&c.node.EventsCap, "events-per-alarm", 0, "events kept per alarm with retention")
	fs.BoolVar(&c.node.UnfairClaims, "unfair-claims", false, "claim the oldest due first whoever owns them")
	fs.IntVar(&c.node.WakeURLMaxInFlight, "wake-url-max-in-flight", 0, "serve's --wake-url-max-in-flight")
	fs.StringVar(&c.node.OTelEndpoint, "otel-endpoint", "", "serve's --otel-endpoint")
	fs.StringVar(&c.node.BurstOwner, "burst-owner", "", "fairness mode: the owner whose wakes are told from the others' (noop)")
	fs.DurationVar(&c.node.DeliveryTimeout, "delivery-timeout", 0, "serve's --delivery-timeout (0: its default)")
	fs.StringVar(&c.keys, "keys", "", "file to write delivered occurrence keys to (noop)")
	fs.StringVar(&c.cpuprofile, "cpuprofile", "", "write a CPU profile of the run here")
}

// RunWorker is the worker process: one node, driven over stdin and stdout by the
// bench that started it. A binary that runs Run with nodes in processes of their own
// must hand its WorkerCommand subcommand to RunWorker.
func RunWorker(ctx context.Context, wc WorkerConfig, w Wiring, stdout io.Writer) error {
	cfg := wc.node
	// The secret comes through the environment, not the command line (ps shows that).
	cfg.WakeSecret = os.Getenv("CHRONOS_BENCH_WAKE_SECRET")
	out := json.NewEncoder(stdout)
	var outMu sync.Mutex
	send := func(m workerMessage) {
		outMu.Lock()
		defer outMu.Unlock()
		_ = out.Encode(m)
	}

	n, err := newDispatcherNode(ctx, cfg, w)
	if err != nil {
		send(workerMessage{Error: err.Error()})
		return err
	}
	send(workerMessage{Ready: true})
	in := bufio.NewScanner(os.Stdin)
	var lagFrom int64
	if !in.Scan() || !strings.HasPrefix(in.Text(), "go") {
		_, _ = n.stop()
		return errors.New("bench-worker: parent went away before go")
	}
	if f := strings.Fields(in.Text()); len(f) == 2 {
		lagFrom, _ = strconv.ParseInt(f[1], 10, 64)
	}
	if wc.cpuprofile != "" {
		stopProfile, err := startCPUProfile(wc.cpuprofile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	var from time.Time
	if lagFrom != 0 {
		from = time.Unix(0, lagFrom)
	}
	if err := n.start(from); err != nil {
		_, _ = n.stop()
		send(workerMessage{Error: err.Error()})
		return err
	}
	stopped := make(chan struct{})
	go func() {
		for in.Scan() && in.Text() != "stop" {
		}
		close(stopped)
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for running := true; running; {
		select {
		case <-stopped:
			running = false
		case <-ctx.Done():
			running = false
		case <-tick.C:
		}
		p := n.progress()
		send(workerMessage{Progress: &p})
	}
	rep, err := n.stop()
	if err == nil && wc.keys != "" {
		err = os.WriteFile(wc.keys, []byte(strings.Join(rep.Keys, "\n")), 0o600)
	}
	if err != nil {
		send(workerMessage{Error: err.Error()})
		return err
	}
	send(workerMessage{Report: &rep})
	return nil
}

// processNode is a worker process as seen from the bench.
type processNode struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	keysPath string

	mu       sync.Mutex
	last     nodeProgress
	report   *nodeReport
	failure  string
	messages chan workerMessage
	exited   chan struct{}
}

// startProcessNode launches worker i and waits until its store is open.
func startProcessNode(ctx context.Context, i int, cfg nodeConfig, dir, cpuprofile string) (*processNode, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("bench: finding this binary to start worker processes: %w", err)
	}
	p := &processNode{keysPath: fmt.Sprintf("%s/keys-%d.txt", dir, i), messages: make(chan workerMessage, 1), exited: make(chan struct{})}
	args := []string{WorkerCommand, "--store", cfg.Store, "--waker", cfg.Waker, "--wake-url", cfg.WakeURL,
		"--batch", strconv.Itoa(cfg.Batch), "--concurrency", strconv.Itoa(cfg.Concurrency), "--tick", cfg.Tick.String(),
		"--retention", cfg.Retention.String(), "--events-per-alarm", strconv.Itoa(cfg.EventsCap), "--keys", p.keysPath,
		"--unfair-claims=" + strconv.FormatBool(cfg.UnfairClaims), "--burst-owner", cfg.BurstOwner,
		"--wake-url-max-in-flight", strconv.Itoa(cfg.WakeURLMaxInFlight), "--otel-endpoint", cfg.OTelEndpoint,
		"--delivery-timeout", cfg.DeliveryTimeout.String()}
	if cpuprofile != "" {
		args = append(args, "--cpuprofile", fmt.Sprintf("%s.node%d", cpuprofile, i))
	}
	p.cmd = exec.Command(self, args...)
	p.cmd.Env = append(os.Environ(), "CHRONOS_BENCH_WAKE_SECRET="+cfg.WakeSecret)
	p.cmd.Stderr = os.Stderr
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting worker %d: %w", i, err)
	}
	go p.read(stdout)
	select {
	case m := <-p.messages:
		if m.Ready {
			return p, nil
		}
		_ = p.cmd.Wait()
		return nil, fmt.Errorf("bench: worker %d: %s", i, m.Error)
	case <-p.exited:
		_ = p.cmd.Wait()
		return nil, fmt.Errorf("bench: worker %d exited before it was ready", i)
	case <-ctx.Done():
		_ = p.cmd.Process.Kill()
		return nil, ctx.Err()
	}
}

func (p *processNode) read(stdout io.Reader) {
	defer close(p.exited)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		var m workerMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			continue
		}
		p.mu.Lock()
		switch {
		case m.Progress != nil:
			p.last = *m.Progress
		case m.Report != nil:
			p.report = m.Report
		case m.Error != "":
			p.failure = m.Error
		}
		p.mu.Unlock()
		if m.Ready || m.Error != "" {
			select {
			case p.messages <- m:
			default:
			}
		}
	}
}

// start sends "go" with the lag floor in unix nanoseconds (0: none).
func (p *processNode) start(lagFrom time.Time) error {
	var ns int64
	if !lagFrom.IsZero() {
		ns = lagFrom.UnixNano()
	}
	_, err := fmt.Fprintf(p.stdin, "go %d\n", ns)
	return err
}

func (p *processNode) progress() nodeProgress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

func (p *processNode) stop() (nodeReport, error) {
	_, _ = io.WriteString(p.stdin, "stop\n")
	_ = p.stdin.Close()
	<-p.exited
	waitErr := p.cmd.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.report == nil {
		return nodeReport{}, fmt.Errorf("bench: worker %d ended without a report (%s) %v", p.cmd.Process.Pid, p.failure, waitErr)
	}
	rep := *p.report
	if raw, err := os.ReadFile(p.keysPath); err == nil && len(raw) > 0 {
		rep.Keys = strings.Split(string(raw), "\n")
	}
	return rep, nil
}

// startCPUProfile writes a CPU profile to path until the returned function is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
