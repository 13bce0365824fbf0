package admin

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// replicaRetry is how long the operator's reads stay on the primary after the replica
// failed one, so a replica that is down costs one failed read (up to its connect
// timeout) every so often rather than one per page.
const replicaRetry = 15 * time.Second

// staleReader is what the operator's reads that may be a little stale use: the
// primary's store or the read replica.
type staleReader interface {
	ports.AlarmReader
	ports.StateReader
}

// reads sends the operator's reads that may be a little stale (staleReader) to
// the read replica when the node has one, and to the primary when it has none or the
// replica fails: a replica that is down or behind never fails a view. Everything else
// (actions, bulk selections, tokens, endpoints, workers, the pause gate) reads the
// primary, since a write or a liveness verdict follows from it.
type reads struct {
	primary staleReader
	replica ports.ReadReplica // nil: none
	clock   ports.Clock
	log     *zap.Logger

	mu        sync.Mutex
	downUntil time.Time // the replica is skipped until then
	lastErr   error     // why; nil while it answers
}

// readStale runs read on the replica, or on the primary when the replica is down, fails
// it, or does not have the alarm asked for yet.
func readStale[T any](ctx context.Context, r *reads, read func(staleReader) (T, error)) (T, error) {
	if r.replica != nil && r.replicaUp() {
		v, err := read(r.replica)
		var invalid *domain.ValidationError
		switch {
		case err == nil:
			r.answered()
			return v, nil
		case errors.As(err, &invalid) || ctx.Err() != nil:
			return v, err // the primary would answer the same
		case errors.Is(err, ports.ErrNotFound):
			// Created on the primary and not yet replayed; the primary says for sure.
		default:
			r.failed(err)
		}
	}
	return read(r.primary)
}

func (r *reads) replicaUp() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.clock.Now().Before(r.downUntil)
}

func (r *reads) failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastErr == nil {
		r.log.Warn("the read replica failed: the operator's reads go to the primary meanwhile",
			zap.Error(err), zap.Duration("retry_in", replicaRetry))
	}
	r.lastErr, r.downUntil = err, r.clock.Now().Add(replicaRetry)
}

func (r *reads) answered() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastErr != nil {
		r.log.Info("the read replica answers again: the operator's reads go to it")
	}
	r.lastErr, r.downUntil = nil, time.Time{}
}

// state is the replica's lag, or why the operator's reads go to the primary; nil
// without a replica.
func (r *reads) state(ctx context.Context) *domain.ReplicaState {
	if r.replica == nil {
		return nil
	}
	if r.replicaUp() {
		lag, err := r.replica.ReplicationLag(ctx)
		if err == nil {
			r.answered()
			return &domain.ReplicaState{Available: true, Lag: lag}
		}
		if ctx.Err() != nil {
			return &domain.ReplicaState{Error: err.Error()}
		}
		r.failed(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastErr == nil { // it answered a read meanwhile
		return &domain.ReplicaState{Available: true}
	}
	return &domain.ReplicaState{Error: r.lastErr.Error()}
}
