package mysql

import (
	"context"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
)

// RegisterWorker inserts or replaces the worker row, stamping started_at and
// heartbeat_at with the store's now (both COALESCEs read the same statement time).
// REPLACE rather than INSERT ... ON DUPLICATE KEY UPDATE: the row is wholly new, and
// the VALUES() form that would be needed is deprecated on MySQL while its replacement
// (row aliases) does not exist on MariaDB.
func (s *Store) RegisterWorker(ctx context.Context, w domain.Worker) error {
	stats, err := sqlrow.StatsJSON(w.Stats)
	if err != nil {
		return mapError(err)
	}
	now := s.injectedNow()
	_, err = s.db.ExecContext(ctx, `REPLACE INTO workers (`+sqlrow.WorkerColumns+`)
		VALUES (?, ?, ?, ?, ?, COALESCE(?, UTC_TIMESTAMP(6)), COALESCE(?, UTC_TIMESTAMP(6)))`,
		w.ID, w.Host, w.PID, w.Version, stats, now, now)
	return mapError(err)
}

// Heartbeat sets heartbeat_at to the store's now and replaces the stats.
func (s *Store) Heartbeat(ctx context.Context, workerID string, stats domain.WorkerStats) error {
	js, err := sqlrow.StatsJSON(stats)
	if err != nil {
		return mapError(err)
	}
	n, err := sqlrow.Affected(s.db.ExecContext(ctx,
		`UPDATE workers SET heartbeat_at = COALESCE(?, UTC_TIMESTAMP(6)), stats = ? WHERE id = ?`, s.injectedNow(), js, workerID))
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return notFound("worker", workerID)
	}
	return nil
}

// DeregisterWorker removes the row; an unknown worker is not an error.
func (s *Store) DeregisterWorker(ctx context.Context, workerID string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM workers WHERE id = ?`, workerID)
	return mapError(err)
}

// ListWorkers returns registered workers with their stats, oldest first.
func (s *Store) ListWorkers(ctx context.Context) ([]domain.Worker, error) {
	workers, err := sqlrow.Query(ctx, s.db, func(r sqlrow.Scanner) (domain.Worker, error) {
		return sqlrow.ScanWorker(r, sqlrow.NullTime)
	}, sqlrow.ListWorkersSQL)
	return workers, mapError(err)
}
