package dispatch

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// pauseEndBatch bounds how many ended pauses one pass resumes; more wait for the next.
const pauseEndBatch = 100

// pauseEnds resumes the series whose pause with an end has come, once a tick. The row
// is the timer: a pause's end is its paused_until column, found by an indexed query
// (ports.ClaimStore.DuePauses) like a due alarm, so a restart or another node loses
// nothing and no node keeps a timer per pause. Every node runs it; ResumeDue checks
// again under the row lock, so a pause two nodes find at once is resumed once.
type pauseEnds struct {
	last time.Time // when the last pass ran (process clock)
}

// run does a pass when a tick has gone by since the last one.
func (p *pauseEnds) run(ctx context.Context, d *Dispatcher) {
	now := time.Now()
	if now.Sub(p.last) < d.cfg.Tick {
		return
	}
	p.last = now
	readCtx, cancel := context.WithTimeout(ctx, d.cfg.storeTimeout())
	ids, err := d.store.DuePauses(readCtx, pauseEndBatch)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			d.log.Warn("reading ended pauses failed; trying again next tick", zap.Error(err))
		}
		return
	}
	for _, id := range ids {
		mutCtx, cancel := context.WithTimeout(ctx, d.cfg.storeTimeout())
		a, err := d.store.Mutate(mutCtx, ports.AnyOwner, id, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
			t, changed := domain.ResumeDue(a, now)
			return t, changed, nil
		})
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				d.log.Warn("ending a pause failed; trying again next tick", zap.String("alarm", id), zap.Error(err))
			}
			continue
		}
		// The resumed series is due at its next occurrence: this loop claims it then
		// (its last read of the next due time ran while the series was paused).
		if a.Status == domain.StatusActive {
			d.hints.Hint(a.NextFireAt)
		}
		d.log.Info("pause ended", zap.String("alarm", id), zap.String("status", string(a.Status)))
	}
}
