package postgres

import (
	"context"

	"github.com/chronoshq/chronos/domain"
)

const workerColumns = `id, host, pid, started_at, heartbeat_at`

// RegisterWorker inserts or replaces the worker row, started and beating at the
// store's now.
func (s *Store) RegisterWorker(ctx context.Context, w domain.Worker) error {
	_, err := s.pool.Exec(ctx, `
		INSERT INTO workers (`+workerColumns+`)
		VALUES ($1, $2, $3, coalesce($4::timestamptz, now()), coalesce($4::timestamptz, now()))
		ON CONFLICT (id) DO UPDATE SET
			host = excluded.host, pid = excluded.pid,
			started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
		w.ID, w.Host, w.PID, s.nowArg())
	return mapError(err)
}

// Heartbeat sets heartbeat_at to the store's now.
func (s *Store) Heartbeat(ctx context.Context, workerID string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE workers SET heartbeat_at = coalesce($2::timestamptz, now()) WHERE id = $1`,
		workerID, s.nowArg())
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

// ListWorkers returns registered workers, oldest first.
func (s *Store) ListWorkers(ctx context.Context) ([]domain.Worker, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+workerColumns+` FROM workers ORDER BY started_at, id`)
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	workers := []domain.Worker{}
	for rows.Next() {
		var w domain.Worker
		if err := rows.Scan(&w.ID, &w.Host, &w.PID, &w.StartedAt, &w.HeartbeatAt); err != nil {
			return nil, mapError(err)
		}
		w.StartedAt, w.HeartbeatAt = w.StartedAt.UTC(), w.HeartbeatAt.UTC()
		workers = append(workers, w)
	}
	return workers, mapError(rows.Err())
}
