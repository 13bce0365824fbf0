package sqlite

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
)

// RegisterWorker inserts or replaces the worker row (id, host, pid, version, stats),
// started and heartbeating now.
func (s *Store) RegisterWorker(ctx context.Context, w domain.Worker) error {
	stats, err := sqlrow.StatsJSON(w.Stats)
	if err != nil {
		return mapError(err)
	}
	now := toDB(s.now())
	_, err = s.writer.ExecContext(ctx, `INSERT INTO workers (`+sqlrow.WorkerColumns+`)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
		ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, version = excluded.version,
			stats = excluded.stats, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
		w.ID, w.Host, w.PID, w.Version, stats, now)
	return mapError(err)
}

// Heartbeat records that the worker is alive now, with the stats it reports.
func (s *Store) Heartbeat(ctx context.Context, workerID string, stats domain.WorkerStats) error {
	js, err := sqlrow.StatsJSON(stats)
	if err != nil {
		return mapError(err)
	}
	n, err := sqlrow.Affected(s.writer.ExecContext(ctx, `UPDATE workers SET heartbeat_at = ?, stats = ? WHERE id = ?`,
		toDB(s.now()), js, workerID))
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return notFound("worker", workerID)
	}
	return nil
}

// DeregisterWorker removes the worker row; an unknown worker is not an error.
func (s *Store) DeregisterWorker(ctx context.Context, workerID string) error {
	_, err := s.writer.ExecContext(ctx, `DELETE FROM workers WHERE id = ?`, workerID)
	return mapError(err)
}

// ListWorkers returns registered workers with their stats, oldest first.
func (s *Store) ListWorkers(ctx context.Context) ([]domain.Worker, error) {
	workers, err := sqlrow.Query(ctx, s.reader, func(r sqlrow.Scanner) (domain.Worker, error) {
		return sqlrow.ScanWorker(r, fromDB)
	}, sqlrow.ListWorkersSQL)
	return workers, mapError(err)
}
