package bench

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/ports"
)

// nodeConfig is what every bench node, in-process or a worker process, runs with.
type nodeConfig struct {
	Store       string
	Waker       string // noop or webhook
	WakeURL     string
	WakeSecret  string
	Batch       int
	Concurrency int
	Tick        time.Duration
	Retention   time.Duration // 0: no retention, as the burn-down figures were measured
	EventsCap   int           // --events-per-alarm with retention
	// UnfairClaims is serve's --unfair-claims.
	UnfairClaims bool
	// WakeURLMaxInFlight is serve's --wake-url-max-in-flight.
	WakeURLMaxInFlight int
	// OTelEndpoint is serve's --otel-endpoint.
	OTelEndpoint string
	// BurstOwner, in the fairness mode, is the owner whose wakes the node's recorder
	// tells from the others' (Recorder.TrackOwners); "": it does not.
	BurstOwner string
	// DeliveryTimeout is serve's --delivery-timeout (0: its default).
	DeliveryTimeout time.Duration
}

// nodeProgress is what a node has done so far.
type nodeProgress struct {
	Delivered   int64     `json:"delivered"`
	Failed      int64     `json:"failed"`
	Applied     int64     `json:"applied"`
	LastApplied time.Time `json:"last_applied"` // when Applied last grew
	// The fairness mode, with the no-op waker: burst wakes delivered, and the latest.
	Burst     int64     `json:"burst,omitempty"`
	BurstLast time.Time `json:"burst_last,omitzero"`
}

// nodeReport is what a node hands back when it has stopped.
type nodeReport struct {
	Stats dispatch.StatsSnapshot `json:"stats"`
	// Set by nodes with the no-op waker, which record deliveries themselves.
	Lag     *HistogramData `json:"lag,omitempty"`
	Keys    []string       `json:"-"`
	Doubles int64          `json:"doubles"`
	Early   int64          `json:"early"`
	// Owners is the fairness mode's log, with the no-op waker.
	Owners *OwnerLogData `json:"owners,omitempty"`
	// Endpoints is what the node's endpoints held back and queued.
	Endpoints endpointFigures `json:"endpoints"`
	// PeakRSS is the node's process's peak resident set size in bytes. A node run in
	// the bench's own process (one node, or --in-process) shares it with the bench's
	// creator and recorder, so the figure is an upper bound there.
	PeakRSS int64 `json:"peak_rss"`
}

// node is one dispatcher under test.
type node interface {
	// start begins dispatching; the node is ready (store open) before it is called.
	// Lag of wakes scheduled before lagFrom counts from lagFrom (zero: no floor).
	start(lagFrom time.Time) error
	progress() nodeProgress
	// stop stops claiming, drains, closes the node's store and reports.
	stop() (nodeReport, error)
}

// dispatcherNode runs a chronos.Node, as serve assembles it, on its own store (its own
// connections, as a separate process would have). It backs both the in-process nodes
// and the worker processes.
type dispatcherNode struct {
	store ports.Store
	node  *chronos.Node
	rec   *Recorder // nil with the webhook waker
	held  *heldBackMetrics
	// closeWaker closes the webhook waker's idle connections; nil with the no-op waker.
	closeWaker func()

	cancel  context.CancelFunc // stops tracking
	started bool
	mu      sync.Mutex
	last    nodeProgress
	tracked atomic.Bool
}

// receiverRanges are what the bench's endpoints may reach: its own receiver, which
// listens on 127.0.0.1 (startReceiver). The bench is the operator here, as
// --endpoint-allow-cidr 127.0.0.0/8 would make one.
var receiverRanges = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// newDispatcherNode opens the store and builds the node, ready to start.
func newDispatcherNode(ctx context.Context, cfg nodeConfig, wr Wiring) (*dispatcherNode, error) {
	s, err := wr.Open(ctx, cfg.Store, false)
	if err != nil {
		return nil, err
	}
	n := &dispatcherNode{store: s, held: newHeldBackMetrics()}
	// The heartbeat's writes (a register, a beat per interval, a deregister), retention's
	// and the store's upkeep count in the run's commits, as they cost a serve node.
	nc := chronos.Config{
		Version: wr.Version, Batch: cfg.Batch, Concurrency: cfg.Concurrency, Tick: cfg.Tick,
		DeliveryTimeout: cfg.DeliveryTimeout, UnfairClaims: cfg.UnfairClaims, WakeURLMaxInFlight: cfg.WakeURLMaxInFlight,
		OTelEndpoint: cfg.OTelEndpoint,
		Retention:    cfg.Retention, EventsPerAlarm: cfg.EventsCap,
		Metrics: n.held, Logger: wr.log(),
		Endpoints: chronos.EndpointOptions{UserAgent: "chronos-bench/" + wr.Version, AllowCIDRs: receiverRanges},
		Without:   chronos.Without{PauseGate: true, CountSampler: true},
	}
	switch cfg.Waker {
	case "noop":
		n.rec = NewRecorder()
		if cfg.BurstOwner != "" {
			n.rec.TrackOwners(cfg.BurstOwner)
		}
		nc.Waker = NewNoopWaker(n.rec)
	case "webhook":
		// serve's waker; alarms that name an endpoint go to it, through its queue.
		w, err := chronos.NewWebhookWaker(nc, cfg.WakeURL, []string{cfg.WakeSecret})
		if err != nil {
			_ = s.Close()
			return nil, err
		}
		nc.Waker, n.closeWaker = w, w.Close
	default:
		_ = s.Close()
		return nil, fmt.Errorf("bench: unknown waker %q", cfg.Waker)
	}
	if n.node, err = chronos.New(s, nc); err != nil {
		_ = s.Close()
		return nil, err
	}
	return n, nil
}

func (n *dispatcherNode) start(lagFrom time.Time) error {
	if n.rec != nil && !lagFrom.IsZero() {
		n.rec.CountLagFrom(lagFrom)
	}
	if err := n.node.Start(context.Background()); err != nil {
		return err
	}
	n.started = true
	ctx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	go n.track(ctx)
	return nil
}

// track samples the dispatcher's counters every 2ms, to know when the last outcome
// was applied to within that.
func (n *dispatcherNode) track(ctx context.Context) {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		n.sample()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (n *dispatcherNode) sample() {
	st := n.node.Stats()
	n.mu.Lock()
	defer n.mu.Unlock()
	if st.Applied != n.last.Applied {
		n.last.LastApplied = time.Now()
	}
	n.last.Applied, n.last.Delivered, n.last.Failed = st.Applied, st.Delivered, st.Failed
	if n.rec != nil && n.rec.TracksOwners() {
		n.last.Burst, n.last.BurstLast = n.rec.owners.burstProgress()
	}
}

func (n *dispatcherNode) progress() nodeProgress {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.last
}

func (n *dispatcherNode) stop() (nodeReport, error) {
	var err error
	if n.started {
		n.cancel()
		// Stop drains, then the heartbeat deregisters the worker: before the store closes.
		err = n.node.Stop(context.Background())
	}
	n.sample()
	rep := nodeReport{Stats: n.node.Stats(), Endpoints: n.held.snapshot(), PeakRSS: peakRSS()}
	if n.rec != nil {
		lag := n.rec.Lag.Data()
		rep.Lag, rep.Keys, rep.Doubles, rep.Early = &lag, n.rec.Keys(), n.rec.Doubles(), n.rec.Early()
		if n.rec.TracksOwners() {
			owners := n.rec.OwnerLog()
			rep.Owners = &owners
		}
	}
	if n.closeWaker != nil {
		n.closeWaker()
	}
	if cerr := n.store.Close(); err == nil {
		err = cerr
	}
	return rep, err
}
