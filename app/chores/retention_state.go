package chores

import (
	"context"
	"encoding/json"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
)

// RetentionStateName is the ports.StateStore name of the last retention pass, written
// by whichever node ran it, so any node's admin API can say what retention last did.
const RetentionStateName = "retention"

// record stores the pass as the cluster's last retention run. It costs one small write
// per pass (passes are seconds to a minute apart); failing to record is logged only.
func (r *Retention) record(ctx context.Context, pass RetentionPass, start time.Time, passErr error) {
	run := domain.RetentionRun{
		Node: r.cfg.Holder, StartedAt: start.UTC(), FinishedAt: time.Now().UTC(),
		AlarmsDeleted: pass.Alarms, EventsDeleted: pass.Events, SweepNext: r.sweepAfter,
	}
	if passErr != nil {
		run.Error = passErr.Error()
	}
	b, err := json.Marshal(run)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		err = r.store.PutState(ctx, RetentionStateName, string(b))
	}
	if err != nil {
		r.log.Warn("recording the retention pass failed", zap.Error(err))
	}
}

// LastRun is the cluster's last recorded retention pass; false when none was recorded.
func (r *Retention) LastRun(ctx context.Context) (domain.RetentionRun, bool, error) {
	st, ok, err := r.store.GetState(ctx, RetentionStateName)
	if err != nil || !ok {
		return domain.RetentionRun{}, false, err
	}
	var run domain.RetentionRun
	if err := json.Unmarshal([]byte(st.Value), &run); err != nil {
		return domain.RetentionRun{}, false, err
	}
	return run, true, nil
}
