package sqlstore

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
)

// RegisterWorker inserts or replaces the worker row, started and beating at the
// store's now.
func (e *Engine[T]) RegisterWorker(ctx context.Context, w domain.Worker) error {
	stats, err := sqlrow.StatsJSON(w.Stats)
	if err != nil {
		return e.mapError(err)
	}
	now := e.NowArg()
	_, err = e.Write.Exec(ctx, e.SQL.RegisterWorker, w.ID, w.Host, w.PID, w.Version, stats, now, now)
	return e.mapError(err)
}

// Heartbeat sets heartbeat_at to the store's now and replaces the worker's stats.
func (e *Engine[T]) Heartbeat(ctx context.Context, workerID string, stats domain.WorkerStats) error {
	js, err := sqlrow.StatsJSON(stats)
	if err != nil {
		return e.mapError(err)
	}
	n, err := e.Write.Exec(ctx, e.SQL.Heartbeat, e.NowArg(), js, workerID)
	if err != nil {
		return e.mapError(err)
	}
	if n == 0 {
		return e.notFound("worker", workerID)
	}
	return nil
}

// DeregisterWorker removes the worker row; an unknown worker is not an error.
func (e *Engine[T]) DeregisterWorker(ctx context.Context, workerID string) error {
	_, err := e.Write.Exec(ctx, e.SQL.DeregisterWorker, workerID)
	return e.mapError(err)
}

// ListWorkers returns registered workers with their stats, oldest first.
func (e *Engine[T]) ListWorkers(ctx context.Context) ([]domain.Worker, error) {
	workers, err := List(ctx, e.Read, func(r sqlrow.Scanner) (domain.Worker, error) {
		return sqlrow.ScanWorker(r, e.ToTime)
	}, e.SQL.ListWorkers)
	return workers, e.mapError(err)
}
