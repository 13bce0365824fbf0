package mysql

import (
	"context"

	"github.com/chronoshq/chronos/domain"
)

// RegisterWorker inserts or replaces the worker row, stamping started_at and
// heartbeat_at with the store's now (both COALESCEs read the same statement time).
// REPLACE rather than INSERT ... ON DUPLICATE KEY UPDATE: the row is wholly new, and
// the VALUES() form that would be needed is deprecated on MySQL while its replacement
// (row aliases) does not exist on MariaDB.
func (s *Store) RegisterWorker(ctx context.Context, w domain.Worker) error {
	now := s.injectedNow()
	_, err := s.db.ExecContext(ctx, `REPLACE INTO workers (id, host, pid, started_at, heartbeat_at)
		VALUES (?, ?, ?, COALESCE(?, UTC_TIMESTAMP(6)), COALESCE(?, UTC_TIMESTAMP(6)))`,
		w.ID, w.Host, w.PID, now, now)
	return mapError(ctx, err)
}

// Heartbeat sets heartbeat_at to the store's now.
func (s *Store) Heartbeat(ctx context.Context, workerID string) error {
	res, err := s.db.ExecContext(ctx,
		`UPDATE workers SET heartbeat_at = COALESCE(?, UTC_TIMESTAMP(6)) WHERE id = ?`, s.injectedNow(), workerID)
	if err != nil {
		return mapError(ctx, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return mapError(ctx, err)
	}
	if n == 0 {
		return notFound("worker", workerID)
	}
	return nil
}

// DeregisterWorker removes the row; an unknown worker is not an error.
func (s *Store) DeregisterWorker(ctx context.Context, workerID string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM workers WHERE id = ?`, workerID)
	return mapError(ctx, err)
}

// ListWorkers returns registered workers, oldest first.
func (s *Store) ListWorkers(ctx context.Context) ([]domain.Worker, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, host, pid, started_at, heartbeat_at FROM workers ORDER BY started_at, id`)
	if err != nil {
		return nil, mapError(ctx, err)
	}
	defer rows.Close()
	out := []domain.Worker{}
	for rows.Next() {
		var w domain.Worker
		if err := rows.Scan(&w.ID, &w.Host, &w.PID, &w.StartedAt, &w.HeartbeatAt); err != nil {
			return nil, mapError(ctx, err)
		}
		out = append(out, w)
	}
	return out, mapError(ctx, rows.Err())
}
