package app

import (
	"context"
	"encoding/json"
	"time"

	"go.uber.org/zap"
)

// RetentionStateName is the ports.StateStore name of the last retention pass, written
// by whichever node ran it, so any node's admin API can say what retention last did.
const RetentionStateName = "retention"

// RetentionRun is one recorded retention pass.
type RetentionRun struct {
	Node          string    `json:"node"`
	StartedAt     time.Time `json:"started_at"`
	FinishedAt    time.Time `json:"finished_at"`
	AlarmsDeleted int       `json:"alarms_deleted"`
	EventsDeleted int       `json:"events_deleted"`
	Error         string    `json:"error,omitempty"`
}

// record stores the pass as the cluster's last retention run. It costs one small write
// per pass (passes are seconds to a minute apart); failing to record is logged only.
func (r *Retention) record(ctx context.Context, pass RetentionPass, start time.Time, passErr error) {
	run := RetentionRun{
		Node: r.cfg.Holder, StartedAt: start.UTC(), FinishedAt: time.Now().UTC(),
		AlarmsDeleted: pass.Alarms, EventsDeleted: pass.Events,
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
func (r *Retention) LastRun(ctx context.Context) (RetentionRun, bool, error) {
	st, ok, err := r.store.GetState(ctx, RetentionStateName)
	if err != nil || !ok {
		return RetentionRun{}, false, err
	}
	var run RetentionRun
	if err := json.Unmarshal([]byte(st.Value), &run); err != nil {
		return RetentionRun{}, false, err
	}
	return run, true, nil
}
