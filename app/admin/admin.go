// Package admin holds the operator's use cases across owners: the overview and actions
// on any alarm, the pause gate and retention on request, backups, the owners' endpoints
// and the API tokens (with the check every request passes).
package admin

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app/chores"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Config is what the operator's use cases need to know about the cluster.
type Config struct {
	// Lease is the dispatcher's lease: a claim younger than it is in flight, not backlog.
	Lease time.Duration
	// WorkerTimeout: a worker whose last heartbeat is older than this is reported dead
	// (a few heartbeat intervals).
	WorkerTimeout time.Duration
	// CountsMaxAge: the overview takes the counts the CountSampler shared when they are
	// at most this old, and counts every alarm itself otherwise; 0 always counts.
	CountsMaxAge time.Duration
	// BackupDir is where Backup writes the copies it is asked for; "" makes none.
	BackupDir string
	// Replica, when set, serves the lists, counts, alarm pages and histories (the
	// primary does when it fails); nil: the store serves every read.
	Replica ports.ReadReplica
	// Hint, when set, tells the dispatchers an alarm is due at at (a retry or trigger
	// makes one due now), so an operator's action is as punctual as an owner's; nil:
	// the dispatchers find it at their next look at the next due time (a tick).
	Hint func(ctx context.Context, at time.Time)
}

// Admin is the set of operator use cases: every owner's alarms, the workers, the pause
// gate and retention. The API calls it only for admin-scoped tokens; every change names
// the token that made it (by), in the alarm's history or, for what has no alarm left to
// record it on, in the log.
type Admin struct {
	store     ports.Store
	reads     *reads // what may be read from the replica
	clock     ports.Clock
	gate      *chores.DispatchGate
	retention *chores.Retention // nil when this node runs none
	cfg       Config
	log       *zap.Logger
	backingUp sync.Mutex // one backup at a time: each holds a read snapshot
}

// New builds the operator use cases. retention may be nil.
func New(store ports.Store, clock ports.Clock, gate *chores.DispatchGate, retention *chores.Retention, cfg Config, log *zap.Logger) *Admin {
	if log == nil {
		log = zap.NewNop()
	}
	r := &reads{primary: store, replica: cfg.Replica, clock: clock, log: log.Named("replica")}
	return &Admin{store: store, reads: r, clock: clock, gate: gate, retention: retention, cfg: cfg, log: log}
}

// MaxBulk bounds the alarms one bulk retry, cancel or delete goes through.
const MaxBulk = 10_000

// ValidateAdminFilter refuses a filter that could only be a mistake, naming the field.
// Its scope is ports.AnyOwner, or ports.OwnedBy the owner the operator filters on; a
// scope that sees nothing is a caller's bug, refused rather than answered empty.
func ValidateAdminFilter(f ports.ListFilter) error {
	if f.Scope.None() {
		return &domain.ValidationError{Field: "owner", Message: "the filter's scope sees no alarm: give ports.AnyOwner or an owner"}
	}
	if f.Status != "" && !slices.Contains(domain.Statuses, f.Status) {
		return &domain.ValidationError{Field: "status", Message: fmt.Sprintf("must be one of %v, got %q", domain.Statuses, f.Status)}
	}
	if f.Kind != "" && f.Kind != domain.KindOnce && f.Kind != domain.KindCron {
		return &domain.ValidationError{Field: "kind", Message: fmt.Sprintf("must be %q or %q, got %q", domain.KindOnce, domain.KindCron, f.Kind)}
	}
	if !f.FailedSince.IsZero() && f.Status != "" && f.Status != domain.StatusFailed {
		return &domain.ValidationError{Field: "failed_since", Message: fmt.Sprintf("selects failed alarms; it cannot be combined with status %q", f.Status)}
	}
	return nil
}

// List returns every owner's alarms matching f, newest first, a page at a time (from
// the read replica when the node has one).
func (s *Admin) List(ctx context.Context, f ports.ListFilter) ([]domain.Alarm, string, error) {
	if err := ValidateAdminFilter(f); err != nil {
		return nil, "", err
	}
	type page struct {
		alarms []domain.Alarm
		next   string
	}
	p, err := readStale(ctx, s.reads, func(r staleReader) (page, error) {
		alarms, next, err := r.List(ctx, f)
		return page{alarms, next}, err
	})
	return p.alarms, p.next, err
}

// Get returns any owner's alarm (from the read replica when the node has one).
func (s *Admin) Get(ctx context.Context, id string) (domain.Alarm, error) {
	return readStale(ctx, s.reads, func(r staleReader) (domain.Alarm, error) { return r.Get(ctx, ports.AnyOwner, id) })
}

// Events returns any owner's alarm's history, oldest first (from the read replica when
// the node has one).
func (s *Admin) Events(ctx context.Context, id string, limit int) ([]domain.Event, error) {
	return readStale(ctx, s.reads, func(r staleReader) ([]domain.Event, error) { return r.Events(ctx, ports.AnyOwner, id, limit) })
}

// Attempts returns a page of any owner's alarm's attempt log, newest first (from the
// read replica when the node has one).
func (s *Admin) Attempts(ctx context.Context, id string, limit int, cursor string) ([]domain.Event, string, error) {
	p, err := readStale(ctx, s.reads, func(r staleReader) (attemptPage, error) {
		evs, next, err := r.Attempts(ctx, ports.AttemptsQuery{Scope: ports.AnyOwner, AlarmID: id, Limit: limit, Cursor: cursor})
		return attemptPage{evs, next}, err
	})
	return p.attempts, p.next, err
}

// attemptPage is a page of Attempts through readStale.
type attemptPage struct {
	attempts []domain.Event
	next     string
}

// Workers lists every registered node, oldest first, with its heartbeat age.
func (s *Admin) Workers(ctx context.Context) ([]domain.WorkerHealth, error) {
	ws, err := s.store.ListWorkers(ctx)
	if err != nil {
		return nil, err
	}
	now, err := s.store.Now(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]domain.WorkerHealth, len(ws))
	for i, w := range ws {
		age := max(now.Sub(w.HeartbeatAt), 0)
		out[i] = domain.WorkerHealth{Worker: w, HeartbeatAge: age, Alive: age < s.cfg.WorkerTimeout}
	}
	return out, nil
}

// Dispatch is the pause gate as the cluster has it now.
func (s *Admin) Dispatch(ctx context.Context) (domain.DispatchState, error) {
	return s.gate.Refresh(ctx)
}

// PauseDispatch stops every node from claiming (within one tick); wakes in flight finish.
func (s *Admin) PauseDispatch(ctx context.Context, by string) (domain.DispatchState, error) {
	st, err := s.gate.Set(ctx, true, by, s.clock.Now())
	if err == nil {
		s.log.Warn("admin paused dispatch cluster-wide", zap.String("token", by), zap.Time("since", st.Since))
	}
	return st, err
}

// ResumeDispatch lets every node claim again (within one tick).
func (s *Admin) ResumeDispatch(ctx context.Context, by string) (domain.DispatchState, error) {
	st, err := s.gate.Set(ctx, false, by, s.clock.Now())
	if err == nil {
		s.log.Warn("admin resumed dispatch cluster-wide", zap.String("token", by))
	}
	return st, err
}

func zapToken(by string) zap.Field { return zap.String("token", by) }

func zapInt(k string, v int) zap.Field { return zap.Int(k, v) }
