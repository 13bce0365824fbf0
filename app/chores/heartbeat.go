package chores

import (
	"context"
	"os"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/internal/random"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// NewWorkerID names this process: host, pid and a random suffix, so a restarted process
// never reuses the id (and so the fence) of its previous life.
func NewWorkerID() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "unknown"
	}
	return host + "-" + strconv.Itoa(os.Getpid()) + "-" + random.String(4)
}

// Heartbeat registers a worker row and refreshes it until stopped, so operators (and the
// admin surface) can see which processes are alive, what they run and what they do.
type Heartbeat struct {
	store    ports.WorkerStore
	worker   domain.Worker
	interval time.Duration
	source   StatsSource // nil: no stats
	windows  statsWindows
	log      *zap.Logger
}

// NewHeartbeat builds the heartbeat for worker id, reporting version and, at every
// beat, the stats of source (nil for none).
func NewHeartbeat(store ports.WorkerStore, id, version string, source StatsSource, interval time.Duration, log *zap.Logger) *Heartbeat {
	host, _ := os.Hostname()
	if log == nil {
		log = zap.NewNop()
	}
	return &Heartbeat{
		store:    store,
		worker:   domain.Worker{ID: id, Host: host, PID: os.Getpid(), Version: version},
		interval: interval,
		source:   source,
		log:      log,
	}
}

// stats reads the source and fills the windows.
func (h *Heartbeat) stats() domain.WorkerStats {
	if h.source == nil {
		return domain.WorkerStats{}
	}
	s := h.source.WorkerStats()
	h.windows.fill(&s, h.source.LagCounts(), time.Now())
	return s
}

// HeartbeatInterval is how often a worker whose claims hold leases of lease beats: often
// enough that its row is fresh well within a lease, and that the admin overview's "last
// minute" is at most 10 s stale. (chronos serve's heartbeatInterval is the same rule.)
func HeartbeatInterval(lease time.Duration) time.Duration {
	return min(max(lease/4, time.Second), 10*time.Second)
}

// Run registers, beats every interval until ctx is done, then deregisters. Store errors
// are logged and retried on the next beat: a missed heartbeat must not stop dispatching.
func (h *Heartbeat) Run(ctx context.Context) {
	registered := h.register(ctx)
	every(ctx, h.interval, false, func(ctx context.Context) {
		if !registered {
			registered = h.register(ctx)
			return
		}
		if err := h.beat(ctx); err != nil && ctx.Err() == nil {
			h.log.Warn("heartbeat failed", zap.Error(err))
			registered = false // re-register next time, in case the row was removed
		}
	})
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := h.store.DeregisterWorker(stop, h.worker.ID); err != nil {
		h.log.Warn("deregistering worker failed", zap.Error(err))
	}
}

// beat refreshes the worker row, within StoreCallTimeout: a beat stuck on a dead
// connection would leave the row to age until this live node looked dead.
func (h *Heartbeat) beat(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, app.StoreCallTimeout)
	defer cancel()
	return h.store.Heartbeat(ctx, h.worker.ID, h.stats())
}

func (h *Heartbeat) register(ctx context.Context) bool {
	w := h.worker
	w.Stats = h.stats()
	call, cancel := context.WithTimeout(ctx, app.StoreCallTimeout)
	defer cancel()
	if err := h.store.RegisterWorker(call, w); err != nil {
		if ctx.Err() == nil {
			h.log.Warn("registering worker failed; will retry", zap.Error(err))
		}
		return false
	}
	return true
}
