package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chronoshq/chronos/domain"
)

const workerColumns = `id, host, pid, version, stats, started_at, heartbeat_at`

// RegisterWorker inserts or replaces the worker row, started and beating at the
// store's now.
func (s *Store) RegisterWorker(ctx context.Context, w domain.Worker) error {
	stats, err := statsArg(w.Stats)
	if err != nil {
		return err
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
	js, err := statsArg(stats)
	if err != nil {
		return err
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
	rows, err := s.pool.Query(ctx, `SELECT `+workerColumns+` FROM workers ORDER BY started_at, id`)
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	workers := []domain.Worker{}
	for rows.Next() {
		var (
			w     domain.Worker
			stats string
		)
		if err := rows.Scan(&w.ID, &w.Host, &w.PID, &w.Version, &stats, &w.StartedAt, &w.HeartbeatAt); err != nil {
			return nil, mapError(err)
		}
		if w.Stats, err = scanStats(w.ID, stats); err != nil {
			return nil, err
		}
		w.StartedAt, w.HeartbeatAt = w.StartedAt.UTC(), w.HeartbeatAt.UTC()
		workers = append(workers, w)
	}
	return workers, mapError(rows.Err())
}

// statsArg is the stats column's text: the JSON of domain.WorkerStats (migration 00004).
func statsArg(st domain.WorkerStats) (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("postgres: worker stats: %w", err)
	}
	return string(b), nil
}

// scanStats reads the stats column back. The column's default '{}' (a row from before
// migration 00004) and an empty text are zero stats.
func scanStats(workerID, js string) (domain.WorkerStats, error) {
	var st domain.WorkerStats
	if js == "" {
		return st, nil
	}
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		return domain.WorkerStats{}, fmt.Errorf("postgres: worker %q: stats are not WorkerStats JSON: %w", workerID, err)
	}
	return st, nil
}
