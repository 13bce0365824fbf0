package postgres

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
)

const workerColumns = sqlrow.WorkerColumns

// RegisterWorker inserts or replaces the worker row, started and beating at the
// store's now.
func (s *Store) RegisterWorker(ctx context.Context, w domain.Worker) error {
	stats, err := sqlrow.StatsJSON(w.Stats)
	if err != nil {
		return mapError(err)
	}
	_, err = s.pool.Exec(ctx, `
		INSERT INTO workers (`+workerColumns+`)
		VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()), coalesce($6::timestamptz, now()))
		ON CONFLICT (id) DO UPDATE SET
			host = excluded.host, pid = excluded.pid, version = excluded.version, stats = excluded.stats,
			started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
		w.ID, w.Host, w.PID, w.Version, stats, s.nowArg())
	return mapError(err)
}

// Heartbeat sets heartbeat_at to the store's now and replaces the worker's stats.
func (s *Store) Heartbeat(ctx context.Context, workerID string, stats domain.WorkerStats) error {
	js, err := sqlrow.StatsJSON(stats)
	if err != nil {
		return mapError(err)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE workers SET heartbeat_at = coalesce($2::timestamptz, now()), stats = $3 WHERE id = $1`,
		workerID, s.nowArg(), js)
	if err != nil {
		return mapError(err)
	}
	if tag.RowsAffected() == 0 {
		return notFound("worker", workerID)
	}
	return nil
}

// DeregisterWorker removes the worker row; an unknown worker is not an error.
func (s *Store) DeregisterWorker(ctx context.Context, workerID string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM workers WHERE id = $1`, workerID)
	return mapError(err)
}

// ListWorkers returns registered workers with their stats, oldest first.
func (s *Store) ListWorkers(ctx context.Context) ([]domain.Worker, error) {
	rows, err := s.pool.Query(ctx, sqlrow.ListWorkersSQL)
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	workers, err := sqlrow.All(rows, 0, func(r sqlrow.Scanner) (domain.Worker, error) {
		return sqlrow.ScanWorker(r, tsTime)
	})
	return workers, mapError(err)
}
