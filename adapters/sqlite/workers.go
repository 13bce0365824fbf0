package sqlite

import (
	"context"
	"database/sql"

	"github.com/chronoshq/chronos/domain"
)

// RegisterWorker inserts or replaces the worker row, started and heartbeating now.
func (s *Store) RegisterWorker(ctx context.Context, w domain.Worker) error {
	now := toDB(s.now())
	_, err := s.writer.ExecContext(ctx, `INSERT INTO workers (id, host, pid, started_at, heartbeat_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid,
			started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
		w.ID, w.Host, w.PID, now, now)
	return mapError(err)
}

// Heartbeat records that the worker is alive now.
func (s *Store) Heartbeat(ctx context.Context, workerID string) error {
	res, err := s.writer.ExecContext(ctx, `UPDATE workers SET heartbeat_at = ? WHERE id = ?`, toDB(s.now()), workerID)
	if err != nil {
		return mapError(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return mapError(err)
	} else if n == 0 {
		return notFound("worker", workerID)
	}
	return nil
}

// DeregisterWorker removes the worker row; an unknown worker is not an error.
func (s *Store) DeregisterWorker(ctx context.Context, workerID string) error {
	_, err := s.writer.ExecContext(ctx, `DELETE FROM workers WHERE id = ?`, workerID)
	return mapError(err)
}

// ListWorkers returns registered workers, oldest first.
func (s *Store) ListWorkers(ctx context.Context) ([]domain.Worker, error) {
	rows, err := s.reader.QueryContext(ctx,
		`SELECT id, host, pid, started_at, heartbeat_at FROM workers ORDER BY started_at, id`)
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	workers := []domain.Worker{}
	for rows.Next() {
		var (
			w                  domain.Worker
			started, heartbeat sql.NullInt64
		)
		if err := rows.Scan(&w.ID, &w.Host, &w.PID, &started, &heartbeat); err != nil {
			return nil, mapError(err)
		}
		w.StartedAt, w.HeartbeatAt = fromDB(started), fromDB(heartbeat)
		workers = append(workers, w)
	}
	return workers, mapError(rows.Err())
}
