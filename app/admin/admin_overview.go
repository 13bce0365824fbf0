package admin

import (
	"context"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/app/chores"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Overview reads the counts the sampling node shared (when recent enough; else it
// counts every alarm itself, a read of every alarm's status), sums the live workers'
// windows and queuing endpoints, and reads the pause gate. The counts come from the
// read replica when the node has one, and the overview says how far behind it is.
func (s *Admin) Overview(ctx context.Context) (domain.Overview, error) {
	var o domain.Overview
	now, err := s.store.Now(ctx)
	if err != nil {
		return o, err
	}
	counts, err := readStale(ctx, s.reads, func(r staleReader) (ports.AlarmCounts, error) {
		if s.cfg.CountsMaxAge > 0 {
			if counts, ok := chores.SharedCountsSince(ctx, r, now.Add(-s.cfg.CountsMaxAge)); ok {
				return counts, nil
			}
		}
		return r.CountAlarms(ctx, s.cfg.Lease)
	})
	if err != nil {
		return o, err
	}
	o.Replica = s.reads.state(ctx)
	o.ByStatus, o.Due, o.OldestDue, o.CountedAt, o.Now = counts.ByStatus, counts.Due, counts.OldestDue, counts.Now, now
	if counts.Due > 0 {
		o.OldestDueLag = max(now.Sub(counts.OldestDue), 0)
	}
	workers, err := s.Workers(ctx)
	if err != nil {
		return o, err
	}
	for _, w := range workers {
		if !w.Alive {
			continue
		}
		o.LiveWorkers++
		o.Delivered1m += w.Stats.Delivered1m
		o.Failed1m += w.Stats.Failed1m
		o.Delivered1h += w.Stats.Delivered1h
		o.Failed1h += w.Stats.Failed1h
	}
	o.QueuingEndpoints = queuingEndpoints(workers)
	if o.Dispatch, err = s.Dispatch(ctx); err != nil {
		return o, err
	}
	if o.Dispatch.Paused {
		o.PausedFor = max(now.Sub(o.Dispatch.Since), 0)
	}
	return o, nil
}

// queuingEndpoints sums the endpoints the live workers report queuing by owner and
// name, busiest first, at most domain.MaxQueuingEndpoints.
func queuingEndpoints(workers []domain.WorkerHealth) []domain.EndpointLoad {
	type key struct{ owner, name string }
	sums := map[key]domain.EndpointLoad{}
	for _, w := range workers {
		if !w.Alive {
			continue
		}
		for _, l := range w.Stats.Endpoints {
			k := key{l.Owner, l.Name}
			sum := sums[k]
			sum.Owner, sum.Name = l.Owner, l.Name
			sum.Queued += l.Queued
			sum.InFlight += l.InFlight
			sum.HeldBack += l.HeldBack
			sums[k] = sum
		}
	}
	loads := make([]domain.EndpointLoad, 0, len(sums))
	for _, sum := range sums {
		loads = append(loads, sum)
	}
	return domain.BusiestEndpoints(loads, domain.MaxQueuingEndpoints)
}

// ErrRetentionOff: a retention run was asked of a node where retention is off.
var ErrRetentionOff = &domain.ValidationError{Field: "retention", Message: "retention is off on this node (--retention 0): nothing is ever deleted"}

// ErrRetentionBusy: another node holds the retention lease and is running it.
var ErrRetentionBusy = fmt.Errorf("%w: another node holds the retention lease and is running retention; try again later", ports.ErrBusy)

// Retention reports this node's policy and the cluster's last pass.
func (s *Admin) Retention(ctx context.Context) (domain.RetentionStatus, error) {
	var st domain.RetentionStatus
	if s.retention == nil {
		return st, nil
	}
	cfg := s.retention.Config()
	st.Retention, st.EventsPerAlarm = cfg.Retention, cfg.EventsPerAlarm
	run, ok, err := s.retention.LastRun(ctx)
	if ok {
		st.LastRun = &run
	}
	return st, err
}

// RunRetention runs one retention pass on this node now and reports it.
func (s *Admin) RunRetention(ctx context.Context, by string) (domain.RetentionRun, error) {
	if s.retention == nil || s.retention.Config().Retention == 0 {
		return domain.RetentionRun{}, ErrRetentionOff
	}
	start := time.Now()
	pass, err := s.retention.RunOnce(ctx)
	if err != nil {
		return domain.RetentionRun{}, err
	}
	if !pass.Held {
		return domain.RetentionRun{}, ErrRetentionBusy
	}
	s.log.Info("admin ran retention", zapToken(by), zapInt("alarms", pass.Alarms), zapInt("events", pass.Events))
	return domain.RetentionRun{
		Node: s.retention.Config().Holder, StartedAt: start.UTC(), FinishedAt: time.Now().UTC(),
		AlarmsDeleted: pass.Alarms, EventsDeleted: pass.Events,
	}, nil
}
