package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/chronoshq/chronos/domain"
)

// RegisterWorker inserts or replaces the worker row (id, host, pid, version, stats),
// started and heartbeating now.
func (s *Store) RegisterWorker(ctx context.Context, w domain.Worker) error {
	stats, err := statsJSON(w.Stats)
	if err != nil {
		return err
	}
	now := toDB(s.now())
	_, err = s.writer.ExecContext(ctx, `INSERT INTO workers (id, host, pid, version, stats, started_at, heartbeat_at)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
		ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, version = excluded.version,
			stats = excluded.stats, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
		w.ID, w.Host, w.PID, w.Version, stats, now)
	return mapError(err)
}

// Heartbeat records that the worker is alive now, with the stats it reports.
func (s *Store) Heartbeat(ctx context.Context, workerID string, stats domain.WorkerStats) error {
	js, err := statsJSON(stats)
	if err != nil {
		return err
	}
	res, err := s.writer.ExecContext(ctx, `UPDATE workers SET heartbeat_at = ?, stats = ? WHERE id = ?`,
		toDB(s.now()), js, workerID)
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

// ListWorkers returns registered workers with their stats, oldest first.
func (s *Store) ListWorkers(ctx context.Context) ([]domain.Worker, error) {
	rows, err := s.reader.QueryContext(ctx,
		`SELECT id, host, pid, version, stats, started_at, heartbeat_at FROM workers ORDER BY started_at, id`)
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	workers := []domain.Worker{}
	for rows.Next() {
		var (
			w                  domain.Worker
			stats              string
			started, heartbeat sql.NullInt64
		)
		if err := rows.Scan(&w.ID, &w.Host, &w.PID, &w.Version, &stats, &started, &heartbeat); err != nil {
			return nil, mapError(err)
		}
		if w.Stats, err = statsFromJSON(stats); err != nil {
			return nil, fmt.Errorf("sqlite: worker %q: %w", w.ID, err)
		}
		w.StartedAt, w.HeartbeatAt = fromDB(started), fromDB(heartbeat)
		workers = append(workers, w)
	}
	return workers, mapError(rows.Err())
}

// statsJSON is the stats column: domain.WorkerStats as JSON, by its json tags.
func statsJSON(st domain.WorkerStats) (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("sqlite: worker stats: %w", err)
	}
	return string(b), nil
}

// statsFromJSON reads the stats column back; '{}' (the column's default, a worker
// registered before stats existed) and the empty string read as zero stats.
func statsFromJSON(js string) (domain.WorkerStats, error) {
	var st domain.WorkerStats
	if js == "" {
		return st, nil
	}
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		return domain.WorkerStats{}, fmt.Errorf("stats %q: %w", js, err)
	}
	return st, nil
}
