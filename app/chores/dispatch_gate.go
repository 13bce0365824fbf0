package chores

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// DispatchStateName is the ports.StateStore name of the cluster-wide pause gate.
const DispatchStateName = "dispatch"

// DispatchGate is this node's view of the pause gate. Run re-reads it from the store
// every interval (the dispatcher's tick), so every node stops claiming within one tick
// of a pause and starts again within one tick of a resume; Set changes it for the whole
// cluster and for this node at once.
type DispatchGate struct {
	store    ports.StateStore
	interval time.Duration
	metrics  ports.Metrics
	log      *zap.Logger

	mu     sync.Mutex
	state  domain.DispatchState
	known  bool          // read from the store at least once (or the read failed)
	opened chan struct{} // closed while dispatching may go on
	first  chan struct{} // closed once known
}

// NewDispatchGate builds the gate; metrics may be nil.
func NewDispatchGate(store ports.StateStore, interval time.Duration, metrics ports.Metrics, log *zap.Logger) *DispatchGate {
	if metrics == nil {
		metrics = ports.NopMetrics{}
	}
	if log == nil {
		log = zap.NewNop()
	}
	g := &DispatchGate{store: store, interval: interval, metrics: metrics, log: log,
		opened: make(chan struct{}), first: make(chan struct{})}
	close(g.opened)
	return g
}

// Run refreshes the gate every interval until ctx is done.
func (g *DispatchGate) Run(ctx context.Context) {
	every(ctx, g.interval, true, func(ctx context.Context) {
		// Bounded (StoreCallTimeout): a read stuck on a dead connection would keep this
		// node from ever seeing a pause or a resume.
		call, cancel := context.WithTimeout(ctx, app.StoreCallTimeout)
		_, err := g.Refresh(call)
		cancel()
		if err != nil && ctx.Err() == nil {
			g.log.Warn("reading the dispatch pause gate failed; keeping the last known state", zap.Error(err))
		}
	})
}

// Refresh reads the gate from the store. A failed first read leaves the gate open (a
// store that cannot be read cannot be claimed from either) and is returned.
func (g *DispatchGate) Refresh(ctx context.Context) (domain.DispatchState, error) {
	st, ok, err := g.store.GetState(ctx, DispatchStateName)
	if err != nil {
		g.learn(g.State(), false)
		return domain.DispatchState{}, err
	}
	var s domain.DispatchState
	if ok {
		if err := json.Unmarshal([]byte(st.Value), &s); err != nil {
			err = fmt.Errorf("the stored dispatch gate is not valid: %w", err)
			g.learn(g.State(), false)
			return domain.DispatchState{}, err
		}
	}
	g.learn(s, true)
	return s, nil
}

// learn records s as the gate's state; set=false only marks the gate known.
func (g *DispatchGate) learn(s domain.DispatchState, set bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.known {
		g.known = true
		close(g.first)
	}
	if !set {
		return
	}
	was := g.state.Paused
	g.state = s
	switch {
	case s.Paused && !was:
		g.opened = make(chan struct{})
		g.log.Warn("dispatch paused cluster-wide: this node claims nothing until resumed", zap.String("by", s.By), zap.Time("since", s.Since))
	case !s.Paused && was:
		close(g.opened)
		g.log.Info("dispatch resumed cluster-wide")
	}
	g.metrics.DispatchPaused(s.Paused)
}

// State is the gate as this node last read or set it.
func (g *DispatchGate) State() domain.DispatchState {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.state
}

// Wait returns true once dispatching may go on (at once when it is not paused), false
// when ctx ends first. Before the first read it waits for that read.
func (g *DispatchGate) Wait(ctx context.Context) bool {
	select {
	case <-g.first:
	case <-ctx.Done():
		return false
	}
	g.mu.Lock()
	opened := g.opened
	g.mu.Unlock()
	select {
	case <-opened:
		return true
	case <-ctx.Done():
		return false
	}
}

// Set pauses or resumes dispatching for the whole cluster, on behalf of by (an admin
// token id), and returns the new state. Pausing a paused cluster keeps the original
// pause (its start and who began it); resuming a running one changes nothing.
func (g *DispatchGate) Set(ctx context.Context, paused bool, by string, now time.Time) (domain.DispatchState, error) {
	cur, err := g.Refresh(ctx)
	if err != nil {
		return domain.DispatchState{}, err
	}
	if cur.Paused == paused {
		return cur, nil
	}
	next := domain.DispatchState{}
	if paused {
		next = domain.DispatchState{Paused: true, Since: now.UTC(), By: by}
	}
	b, err := json.Marshal(next)
	if err != nil {
		return domain.DispatchState{}, err
	}
	if err := g.store.PutState(ctx, DispatchStateName, string(b)); err != nil {
		return domain.DispatchState{}, err
	}
	g.learn(next, true)
	return next, nil
}
