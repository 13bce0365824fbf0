package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/internal/storeurl"
)

// The punctuality mode measures what a user of `chronos serve` sees: nodes started
// with the default flags (only --store, --listen, --wake-url and --wake-secret; --tick
// only when the run asks for another), alarms created one at a time over the HTTP API on
// a random node, and each wake's lateness taken at a receiver over loopback: its
// arrival minus its scheduled_for.
//
// Sparse alarms: one every punctualityEvery for --duration, due punctualityDelays
// after their create, in turn (50 ms to 60 s). Series: an "@every 1s" and a six-field
// "every second" cron, for the whole run. Then, with nothing due, what the idle nodes
// ask of the store.
var punctualityDelays = []time.Duration{
	50 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond, time.Second,
	2 * time.Second, 3 * time.Second, 5 * time.Second, 7 * time.Second, 15 * time.Second,
	30 * time.Second, 60 * time.Second,
}

const (
	punctualityEvery  = 100 * time.Millisecond
	punctualityOwner  = "punctual"
	punctualityIdle   = 10 * time.Second // the idle window whose store calls are counted
	punctualitySeries = "series"
)

// punctualityRun is one run of the mode.
type punctualityRun struct {
	cfg    Config
	db     *database
	stderr io.Writer
	nodes  []*serveNode
	token  string
	client *http.Client
	recv   *lateReceiver
	// createTimes are the sparse creates' request times (POST /v1/alarms, answered).
	createTimes []time.Duration
}

func runPunctuality(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	db, err := newDatabase(ctx, cfg.Store)
	if err != nil {
		return err
	}
	defer db.close()
	dir, err := os.MkdirTemp("", "chronos-punctuality-")
	if err != nil {
		return err
	}
	defer func() {
		if cfg.Keep {
			fmt.Fprintf(stderr, "bench: kept %s (%s) and the nodes' logs in %s\n", db.name, storeurl.Redact(db.url), dir)
			return
		}
		_ = os.RemoveAll(dir)
		dropCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := db.drop(dropCtx); err != nil {
			fmt.Fprintf(stderr, "bench: dropping %s failed: %v\n", db.name, err)
		}
	}()
	p := &punctualityRun{cfg: cfg, db: db, stderr: stderr, client: &http.Client{Timeout: 10 * time.Second}}
	res, err := p.run(ctx, dir)
	if err != nil {
		return err
	}
	res.print(stdout)
	return nil
}

func (p *punctualityRun) run(ctx context.Context, dir string) (*punctualityResult, error) {
	if _, err := runChronos(ctx, "migrate", "--store", p.db.url); err != nil {
		return nil, err
	}
	token, err := newOwnerToken(ctx, p.db.url, punctualityOwner)
	if err != nil {
		return nil, err
	}
	p.token = token
	secret := randomHex(16)
	p.recv = newLateReceiver(secret)
	wakeURL, stopRecv, err := p.recv.start()
	if err != nil {
		return nil, err
	}
	defer stopRecv()

	args := []string{"--store", p.db.url, "--wake-url", wakeURL, "--wake-secret", secret}
	if p.cfg.Tick != dispatch.DefaultConfig().Tick {
		args = append(args, "--tick", p.cfg.Tick.String())
	}
	if reachesLoopback(p.cfg.PunctualityNoise) {
		// The endpoints are the receiver's, on loopback, which owners' endpoints may
		// not reach unless the operator allows it.
		args = append(args, "--endpoint-allow-cidr", "127.0.0.0/8")
	}
	defer func() { // the nodes started so far, also when a later one fails to start
		for _, n := range p.nodes {
			n.stop()
		}
	}()
	for i := range p.cfg.Nodes {
		n, err := startServeNode(ctx, i, dir, args)
		if err != nil {
			return nil, err
		}
		p.nodes = append(p.nodes, n)
	}
	fmt.Fprintf(p.stderr, "bench: punctuality: %d serve node(s) on %s, default flags%s\n", len(p.nodes), p.db.dialect, tickNote(p.cfg.Tick))

	res := &punctualityResult{Store: p.db.dialect, Nodes: len(p.nodes), Tick: p.cfg.Tick.String()}
	if p.cfg.PunctualityNoise != "" {
		return p.runNoise(ctx, res, strings.TrimSuffix(wakeURL, "/wake"), secret)
	}
	start := time.Now()
	series := make([]string, 0, 2)
	for _, expr := range []string{"@every 1s", "* * * * * *"} {
		id, err := p.create(ctx, map[string]any{"kind": "cron", "cron_expr": expr, "label": punctualitySeries + ":" + expr})
		if err != nil {
			return nil, err
		}
		series = append(series, id)
	}
	sparse, lastDue, err := p.createSparse(ctx, nil, "")
	if err != nil {
		return nil, err
	}
	// Every sparse alarm is due by lastDue; give the last ones a moment, then end the
	// series (so the idle window has nothing due).
	wait := time.Until(lastDue) + 2*time.Second
	fmt.Fprintf(p.stderr, "bench: punctuality: %d sparse alarms created; waiting %s for the last to fall due\n", sparse, wait.Round(time.Second))
	if !sleepCtx(ctx, wait) {
		return nil, ctx.Err()
	}
	for _, id := range series {
		if err := p.cancel(ctx, id); err != nil {
			return nil, err
		}
	}
	res.ElapsedSec = time.Since(start).Seconds()
	res.Sparse = p.recv.figures("sparse")
	res.SparseFired = p.recv.firedFigures("sparse")
	res.SparseByDelay = p.recv.byDelay()
	res.Every = p.recv.figures(punctualitySeries + ":@every 1s")
	res.Cron6 = p.recv.figures(punctualitySeries + ":* * * * * *")
	res.SparseCreated = sparse
	res.Creates = summarizeLateness(p.createTimes)
	res.Doubles, res.Early, res.BadSignatures = p.recv.doubles, p.recv.early, p.recv.bad

	idle, err := p.idleCost(ctx)
	if err != nil {
		return nil, err
	}
	res.Idle = idle
	return res, nil
}

// runNoise is a run with --punctuality-noise: the quiet owner's trickle, each alarm
// due noiseLead after its create, while the noise falls due (or, for abuse, goes on).
func (p *punctualityRun) runNoise(ctx context.Context, res *punctualityResult, base, secret string) (*punctualityResult, error) {
	start := time.Now()
	noise := &noiseFigures{Kind: p.cfg.PunctualityNoise, Alarms: p.cfg.NoiseAlarms}
	var plan noisePlan
	var attack *abuse
	var err error
	switch p.cfg.PunctualityNoise {
	case noiseNone:
		fmt.Fprintf(p.stderr, "bench: punctuality: no noise; the quiet owner's trickle runs %s\n", p.cfg.Duration)
	case noiseAbuse:
		noise.Abuse = &abuseFigures{}
		if attack, err = p.loadAbuse(ctx, base, noise.Abuse); err != nil {
			return nil, err
		}
		fmt.Fprintf(p.stderr, "bench: punctuality: owner %s attacks (SSRF, calendars, bulk calls over %d alarms, 16 MB batches) while the quiet owner's trickle runs %s\n",
			noiseOwner, p.cfg.NoiseAlarms, p.cfg.Duration)
	default:
		if plan, err = p.loadNoise(ctx, base, secret); err != nil {
			return nil, err
		}
		fmt.Fprintf(p.stderr, "bench: punctuality: %d %s alarms due at %s; the quiet owner's trickle runs %s\n",
			p.cfg.NoiseAlarms, p.cfg.PunctualityNoise, plan.due.Format(time.RFC3339), p.cfg.Duration)
	}
	attacked := make(chan struct{})
	attackCtx, stopAttack := context.WithCancel(ctx)
	if attack != nil {
		go func() { attack.run(attackCtx); close(attacked) }()
	} else {
		close(attacked)
	}
	sparse, lastDue, err := p.createSparse(ctx, []time.Duration{noiseLead}, plan.quietEnds)
	stopAttack()
	<-attacked
	if err != nil {
		return nil, err
	}
	if !sleepCtx(ctx, time.Until(lastDue)+2*time.Second) {
		return nil, ctx.Err()
	}
	res.ElapsedSec = time.Since(start).Seconds()
	res.SparseCreated = sparse
	res.Creates = summarizeLateness(p.createTimes)
	res.Sparse = p.recv.figures("sparse")
	res.SparseFired = p.recv.firedFigures("sparse")
	res.Doubles, res.Early, res.BadSignatures = p.recv.doubles, p.recv.early, p.recv.bad
	switch p.cfg.PunctualityNoise {
	case noiseBurst:
		noise.Noise = p.recv.figures("noise")
	case noiseSibling, noiseSiblingAnswering:
		noise.Noise = p.recv.figures("sibling:" + fastEndpointName)
	case noiseAbuse:
		attack.figures(noise.Abuse, p.recv.internal.n.Load())
	}
	res.Noise = noise
	return res, nil
}

// createSparse creates one alarm every punctualityEvery for the run's duration, each
// on a random node, due delays after its create in turn (nil: punctualityDelays), for
// endpoint ("": the wake URL); it returns how many and when the last is due.
func (p *punctualityRun) createSparse(ctx context.Context, delays []time.Duration, endpoint string) (int, time.Time, error) {
	if delays == nil {
		delays = punctualityDelays
	}
	tick := time.NewTicker(punctualityEvery)
	defer tick.Stop()
	end := time.Now().Add(p.cfg.Duration)
	var lastDue time.Time
	n := 0
	for time.Now().Before(end) {
		d := delays[n%len(delays)]
		body := map[string]any{"kind": "once", "delay_seconds": d.Seconds(), "label": "sparse:" + d.String()}
		if endpoint != "" {
			body["endpoint"] = endpoint
		}
		began := time.Now()
		if _, err := p.create(ctx, body); err != nil {
			return n, lastDue, err
		}
		p.createTimes = append(p.createTimes, time.Since(began))
		n++
		if due := time.Now().Add(d); due.After(lastDue) {
			lastDue = due
		}
		select {
		case <-ctx.Done():
			return n, lastDue, ctx.Err()
		case <-tick.C:
		}
	}
	return n, lastDue, nil
}

// create posts one alarm to a random node and returns its id.
func (p *punctualityRun) create(ctx context.Context, body map[string]any) (string, error) {
	b, _ := json.Marshal(body)
	n := p.nodes[rand.IntN(len(p.nodes))]
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+n.addr+"/v1/alarms", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+p.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("bench: create: %w", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("bench: create answered %d: %s", resp.StatusCode, raw)
	}
	var a struct {
		Alarm struct {
			ID string `json:"id"`
		} `json:"alarm"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || a.Alarm.ID == "" {
		return "", fmt.Errorf("bench: create answered %s", raw)
	}
	return a.Alarm.ID, nil
}

func (p *punctualityRun) cancel(ctx context.Context, id string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, "http://"+p.nodes[0].addr+"/v1/alarms/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := p.client.Do(req)
	if err != nil {
		return fmt.Errorf("bench: cancel: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("bench: cancel %s answered %d", id, resp.StatusCode)
	}
	return nil
}

// idleCost counts, over punctualityIdle with nothing due, the claims and next-due
// reads each node made (its own counters, /metrics) and, where the server keeps one,
// the transactions the database committed.
func (p *punctualityRun) idleCost(ctx context.Context) (idleCost, error) {
	if !sleepCtx(ctx, 2*time.Second) { // the series' last wakes settle
		return idleCost{}, ctx.Err()
	}
	before, err := p.storeCalls(ctx)
	if err != nil {
		return idleCost{}, err
	}
	var commits0 int64
	if p.db.commits != nil {
		commits0, _ = p.db.settledCommits(ctx)
	}
	start := time.Now()
	if !sleepCtx(ctx, punctualityIdle) {
		return idleCost{}, ctx.Err()
	}
	after, err := p.storeCalls(ctx)
	if err != nil {
		return idleCost{}, err
	}
	secs := time.Since(start).Seconds()
	perNode := float64(after-before) / secs / float64(len(p.nodes))
	c := idleCost{Seconds: secs, CallsPerNodeSec: perNode}
	if p.db.commits != nil {
		if commits1, err := p.db.settledCommits(ctx); err == nil {
			c.CommitsPerSec = float64(commits1-commits0) / time.Since(start).Seconds()
			c.CommitsSource = p.db.commitsSource
		}
	}
	return c, nil
}

// storeCalls sums chronos_claims_total and chronos_next_due_reads_total over the nodes.
func (p *punctualityRun) storeCalls(ctx context.Context) (int64, error) {
	var total int64
	for _, n := range p.nodes {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+n.addr+"/metrics", nil)
		resp, err := p.client.Do(req)
		if err != nil {
			return 0, fmt.Errorf("bench: metrics: %w", err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, line := range strings.Split(string(raw), "\n") {
			name, value, ok := strings.Cut(line, " ")
			if !ok || (name != "chronos_claims_total" && name != "chronos_next_due_reads_total") {
				continue
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			if err != nil {
				return 0, fmt.Errorf("bench: metrics: %s: %w", line, err)
			}
			total += int64(v)
		}
	}
	return total, nil
}

func tickNote(tick time.Duration) string {
	if tick == dispatch.DefaultConfig().Tick {
		return ""
	}
	return " but --tick " + tick.String()
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// lateReceiver is the wake URL of a punctuality run: it checks each wake's signature
// and records its lateness (arrival − scheduled_for) under the alarm's label.
type lateReceiver struct {
	secret []byte
	mu     sync.Mutex
	late   map[string][]time.Duration // by label
	// inNode is fired_at − scheduled_for by label: the part of the lateness before the
	// node began the wake (the claim, the delivery pool); the rest is the wake's way out
	// (an endpoint's or the shared receiver's queue, the request).
	inNode              map[string][]time.Duration
	seen                map[string]bool // Idempotency-Keys
	doubles, early, bad int64
	internal            internalHits // requests to /internal, which no wake may reach
}

func newLateReceiver(secret string) *lateReceiver {
	return &lateReceiver{secret: []byte(secret), late: map[string][]time.Duration{}, inNode: map[string][]time.Duration{}, seen: map[string]bool{}}
}

func (r *lateReceiver) start() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("bench: receiver: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/hung", hungHandler)
	mux.Handle(abusePath, &r.internal)
	mux.Handle("/", r)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/wake", func() { _ = srv.Close() }, nil
}

func (r *lateReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	if err := webhook.Verify(r.secret, req.Header.Get("Chronos-Signature"), body, at, time.Minute); err != nil {
		r.mu.Lock()
		r.bad++
		r.mu.Unlock()
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	scheduled, ok := scheduledFor(body)
	label, _ := field(body, []byte(`"label":"`))
	if !ok {
		http.Error(w, "wake without scheduled_for", http.StatusBadRequest)
		return
	}
	key := req.Header.Get("Idempotency-Key")
	r.mu.Lock()
	if r.seen[key] {
		r.doubles++
	} else {
		r.seen[key] = true
		lag := at.Sub(scheduled)
		if lag < 0 {
			r.early++
		}
		r.late[label] = append(r.late[label], lag)
		if v, ok := field(body, []byte(`"fired_at":"`)); ok {
			if fired, err := time.Parse(time.RFC3339Nano, v); err == nil {
				r.inNode[label] = append(r.inNode[label], fired.Sub(scheduled))
			}
		}
	}
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// figures summarizes the lateness of every label starting with prefix.
func (r *lateReceiver) figures(prefix string) lateness { return r.summary(r.late, prefix) }

// firedFigures summarizes fired_at − scheduled_for of every label starting with prefix.
func (r *lateReceiver) firedFigures(prefix string) lateness { return r.summary(r.inNode, prefix) }

func (r *lateReceiver) summary(by map[string][]time.Duration, prefix string) lateness {
	r.mu.Lock()
	defer r.mu.Unlock()
	var all []time.Duration
	for label, l := range by {
		if strings.HasPrefix(label, prefix) {
			all = append(all, l...)
		}
	}
	return summarizeLateness(all)
}

// byDelay summarizes the sparse alarms by their delay.
func (r *lateReceiver) byDelay() []delayLateness {
	out := make([]delayLateness, 0, len(punctualityDelays))
	for _, d := range punctualityDelays {
		r.mu.Lock()
		l := append([]time.Duration(nil), r.late["sparse:"+d.String()]...)
		r.mu.Unlock()
		out = append(out, delayLateness{Delay: d.String(), lateness: summarizeLateness(l)})
	}
	return out
}
