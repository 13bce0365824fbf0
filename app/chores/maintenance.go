package chores

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/ports"
)

// DefaultMaintenanceInterval is how often every node asks the store whether upkeep is
// due. Asking reads a few counters; the work itself runs on one node at a time.
const DefaultMaintenanceInterval = 5 * time.Second

// Maintenance runs the store's own upkeep (ports.Maintainer) on a timer, logging what
// was done. With a store that needs none, Run says so and returns.
type Maintenance struct {
	store    ports.Maintainer // nil: the store needs no upkeep
	interval time.Duration
	log      *zap.Logger
	actions  atomic.Int64
}

// NewMaintenance builds the upkeep loop for store; interval <= 0 means
// DefaultMaintenanceInterval.
func NewMaintenance(store ports.Store, interval time.Duration, log *zap.Logger) *Maintenance {
	if interval <= 0 {
		interval = DefaultMaintenanceInterval
	}
	if log == nil {
		log = zap.NewNop()
	}
	m, _ := store.(ports.Maintainer)
	return &Maintenance{store: m, interval: interval, log: log}
}

// Actions is how many upkeep actions this node has done.
func (m *Maintenance) Actions() int64 { return m.actions.Load() }

// Run says once what the store's upkeep will be, then maintains every interval until
// ctx is done. Failures are logged and tried again at the next interval: upkeep that
// fails must never stop the node.
func (m *Maintenance) Run(ctx context.Context) {
	if m.store == nil {
		return
	}
	if notice, err := m.store.MaintenanceNotice(ctx); err != nil {
		if ctx.Err() == nil {
			m.log.Warn("reading the store's upkeep needs failed; will try upkeep anyway", zap.Error(err))
		}
	} else if notice != "" {
		m.log.Warn(notice)
	}
	every(ctx, m.interval, false, m.RunOnce)
}

// RunOnce does the upkeep due now, on this node if no other node is doing it.
func (m *Maintenance) RunOnce(ctx context.Context) {
	if m.store == nil {
		return
	}
	done, err := m.store.Maintain(ctx)
	for _, a := range done {
		m.actions.Add(1)
		m.log.Info("store upkeep", zap.String("table", a.Table), zap.String("what", a.What),
			zap.String("why", a.Why), zap.Duration("took", a.Duration))
	}
	if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
		m.log.Warn("store upkeep failed; trying again later", zap.Error(err))
	}
}
